#!/usr/bin/env python3
"""Benchmark (not a test): the best of three PNG tools per still GIF of a corpus, the anchor
for `--effort max` on a corpus that `../shared/reference/peers.md` has no "best of every
tool" figure for (it has one for Space Jam only).

Each still GIF (one image; animated ones are left out, as in the bench's "still" row) goes to
`optipng -o7` (GIF → PNG, lossless, its interlacing dropped with `-i0` as webdiet does); that
PNG then to `zopflipng -m` and to `oxipng -o max --strip safe`. Per file the smallest of the
three PNGs and the GIF itself counts (keep-smaller, as webdiet's figure does). Prints the
corpus's totals, the CPU of each tool, and the best per file, to compare with the still row
of `CORPUS=... EFFORTS=max cargo bench --bench images`.

    python3 benches/gif-anchors.py [CORPUS]     # default: libwww-docs

Needs optipng, zopflipng (Debian: apt-get install -y optipng zopfli), oxipng 10.2.1 on PATH
(or OXIPNG=/path), and ../shared/corpora (or WEBDIET_SHARED).
"""

import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import children_cpu, gif_frames

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("WEBDIET_SHARED", os.path.join(ROOT, "..", "shared"))
OXIPNG = os.environ.get("OXIPNG", shutil.which("oxipng") or "oxipng")


def run(cmd):
    before = children_cpu()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return children_cpu() - before


def main(corpus):
    site = os.path.join(SHARED, "corpora", corpus)
    if not os.path.isdir(site):
        print(f"skipped: {site} is missing")
        return
    gifs = sorted(
        os.path.join(d, f)
        for d, _, files in os.walk(site)
        for f in files
        if f.lower().endswith(".gif")
    )
    still = [g for g in gifs if gif_frames(open(g, "rb").read()) == 1]
    totals = {"gif": 0, "optipng -o7": 0, "zopflipng -m": 0, "oxipng -o max": 0, "best": 0}
    times = {k: 0.0 for k in totals}
    with tempfile.TemporaryDirectory() as tmp:
        for i, gif in enumerate(still):
            size = os.path.getsize(gif)
            opti, zop, oxi = (os.path.join(tmp, f"{i}.{n}.png") for n in ("o", "z", "x"))
            times["optipng -o7"] += run(["optipng", "-quiet", "-o7", "-i0", "-out", opti, gif])
            sizes = {"gif": size}
            if os.path.exists(opti):
                sizes["optipng -o7"] = os.path.getsize(opti)
                times["zopflipng -m"] += run(["zopflipng", "-m", "-y", opti, zop])
                shutil.copy(opti, oxi)
                times["oxipng -o max"] += run([OXIPNG, "-q", "-o", "max", "--strip", "safe", oxi])
                for name, path in (("zopflipng -m", zop), ("oxipng -o max", oxi)):
                    if os.path.exists(path):
                        sizes[name] = os.path.getsize(path)
            for name in totals:
                if name == "best":
                    continue
                totals[name] += min(sizes.get(name, size), size)
            totals["best"] += min(sizes.values())
    mb = totals["gif"] / 1e6
    print(f"{corpus}: {len(still)} still GIFs of {len(gifs)}, {totals['gif']:,} B")
    for name, total in totals.items():
        extra = f"  {times[name]:.1f} CPU s, {times[name] / mb:.1f} s/MB" if times[name] else ""
        print(f"  {name:<14} {total:>10,} B{extra}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "libwww-docs")
