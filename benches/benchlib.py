"""Helpers shared by the Python bench scripts (not a bench itself): a GIF's frame count and
the CPU time of the child processes a script ran. Import with the script's directory on
`sys.path` (it is, for a script run by path)."""

import resource


def gif_frames(data):
    """Image descriptors in a GIF (its frame count), walking its blocks; 0 for what is not a
    GIF."""
    if data[:6] not in (b"GIF87a", b"GIF89a") or len(data) < 13:
        return 0
    at, n = 13, 0
    if data[10] & 0x80:
        at += 3 << ((data[10] & 7) + 1)

    def skip_blocks(at):
        while at < len(data) and data[at]:
            at += data[at] + 1
        return at + 1

    while at < len(data):
        b = data[at]
        if b == 0x21:
            at = skip_blocks(at + 2)
        elif b == 0x2C:
            n += 1
            flags = data[at + 9] if at + 9 < len(data) else 0
            at += 10
            if flags & 0x80:
                at += 3 << ((flags & 7) + 1)
            at = skip_blocks(at + 1)
        else:
            break
    return n


def children_cpu():
    """User + system CPU seconds of every child process waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
