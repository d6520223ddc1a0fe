#!/usr/bin/env python3
"""Benchmark (not a test): `--effort fast` against `optipng -o2` on the same still GIFs.

For each corpus, `webdiet rewrite --effort fast` (the `dist` build of published binaries;
BUILD_PROFILE=release reads the quick build) converts the site's GIFs; the
still GIFs it converted or kept (one frame) are then given to `optipng -o2`, one process per
file, as OptiPNG is used. Both sides count the bytes after keep-smaller (the PNG where it is
smaller, the GIF otherwise) and CPU: webdiet's is the converting threads' (the report's
`images[].cpu_millis`: decode, oxipng, verification), OptiPNG's the children's user + system
time (process start included, a few ms a file). Issue 26's target: `fast` no larger than
`optipng -o2`, for no more CPU. Recorded in docs/images.md ("Effort levels").

    cargo build --profile dist --locked && python3 benches/fast-vs-optipng.py
    EFFORT=default python3 benches/fast-vs-optipng.py   # another level against the same anchor

Needs optipng (Debian: apt-get install -y optipng) and ../shared/corpora (or WEBDIET_SHARED).
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("WEBDIET_SHARED", os.path.join(ROOT, "..", "shared"))
PROFILE = os.environ.get("BUILD_PROFILE", "dist")
WEBDIET = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), PROFILE, "webdiet")
EFFORT = os.environ.get("EFFORT", "fast")


def main():
    if not shutil.which("optipng"):
        sys.exit("optipng is missing: apt-get install -y optipng")
    if not os.access(WEBDIET, os.X_OK):
        sys.exit(f"build first: cargo build --profile {PROFILE} --locked")
    version = subprocess.run(["optipng", "-v"], capture_output=True, text=True).stdout
    load = open("/proc/loadavg").read().split()[:3]
    print(f"{os.cpu_count()} cores, load {' '.join(load)}; {version.splitlines()[0]}")
    print(f"| corpus | still GIFs | GIF bytes | `--effort {EFFORT}` | CPU s | `optipng -o2` | CPU s | {EFFORT} against optipng |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for corpus in ["spacejam", "libwww-docs"]:
        site = os.path.join(SHARED, "corpora", corpus)
        if not os.path.isdir(site):
            sys.exit(f"{site} is missing (set WEBDIET_SHARED)")
        with tempfile.TemporaryDirectory() as work:
            out = os.path.join(work, "out")
            subprocess.run(
                [WEBDIET, "rewrite", site, "--out", out, "--effort", EFFORT, "--no-markup",
                 "--no-recompress", "--no-minify", "--quiet"],
                check=True, stdout=subprocess.DEVNULL)
            report = json.load(open(os.path.join(out, "report.json")))
            rows = [r for r in report["images"] if r["frames"] == 1]
            gif = sum(r["from_bytes"] for r in rows)
            ours = sum(r["to_bytes"] for r in rows)
            our_cpu = sum(r["cpu_millis"] for r in rows) / 1000
            theirs = 0
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            for i, r in enumerate(rows):
                src = os.path.join(work, f"{i}.gif")
                png = os.path.join(work, f"{i}.png")
                shutil.copyfile(os.path.join(site, r["path"]), src)
                subprocess.run(["optipng", "-o2", "-quiet", "-out", png, src],
                               stderr=subprocess.DEVNULL)
                size = os.path.getsize(png) if os.path.exists(png) else r["from_bytes"]
                theirs += min(size, r["from_bytes"])
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            their_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            print(f"| {corpus} | {len(rows)} | {gif:,} | {ours:,} | {our_cpu:.2f} | {theirs:,} | "
                  f"{their_cpu:.2f} | {100 * (ours - theirs) / theirs:+.1f} % bytes, "
                  f"{our_cpu / their_cpu:.2f}× CPU |")


if __name__ == "__main__":
    main()
