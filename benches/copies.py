#!/usr/bin/env python3
"""Benchmark helper (not a test): how much of the gap between two efforts of one site's
image optimisation sits in files the site holds under several names (docs/images.md, "The
last percent").

Given the site and the report.json of a rewrite at `--effort default` and one at `--effort
max`, groups the site's PNGs (the lossless pass's rows) and converted GIFs (the image rows)
by content and prints, per group size k: the groups, their files, the bytes `max` saves over
`default` counted once per file (each name is its own download), and the extra CPU `max`
spent on them (each group is optimised once; its first row carries the time).

    webdiet rewrite SITE --out D --effort default; webdiet rewrite SITE --out M --effort max
    python3 benches/copies.py SITE D/report.json M/report.json
"""
import collections
import hashlib
import json
import os
import sys


def rows(report):
    r = json.load(open(report))
    out = {x["path"]: x for x in r["lossless"]["rows"] if x["kind"] == "png"}
    out.update({x["path"]: x for x in r["images"] if x["outcome"] == "converted"})
    return out


def main(site, default_report, max_report):
    d, m = rows(default_report), rows(max_report)
    groups = collections.defaultdict(list)
    for path in sorted(set(d) & set(m)):
        with open(os.path.join(site, path), "rb") as f:
            groups[hashlib.sha256(f.read()).hexdigest()].append(path)
    by_size = collections.defaultdict(lambda: [0, 0, 0, 0.0])
    for paths in groups.values():
        k = len(paths)
        gain = d[paths[0]]["to_bytes"] - m[paths[0]]["to_bytes"]
        cpu = sum(m[p]["cpu_millis"] for p in paths) - sum(d[p]["cpu_millis"] for p in paths)
        row = by_size[k]
        row[0] += 1
        row[1] += k
        row[2] += gain * k
        row[3] += cpu / 1000
    total = sum(r[2] for r in by_size.values())
    print(f"{len(d)} files, {len(groups)} distinct; max saves {total:,} B over default")
    print(f"{'copies':>6} {'groups':>6} {'files':>6} {'max - default, B':>17} {'extra CPU s':>11}")
    for k in sorted(by_size):
        g, files, gain, cpu = by_size[k]
        print(f"{k:>6} {g:>6} {files:>6} {gain:>17,} {cpu:>11.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
