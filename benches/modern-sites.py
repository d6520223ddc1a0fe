#!/usr/bin/env python3
"""The tables of docs/modern-sites.md, from what benches/modern-sites.sh left in WORK_DIR:
webdiet's report.json per site and effort, the render check, and the anchor tools run here on
the same images. `modern-sites.py report WORK SHARED OXIPNG EFFORT...`; see the shell script's
header for what is measured and how the comparison is made fair. `modern-sites.py jpeg WORK
SHARED EFFORT...` redoes only the JPEG comparison (Space Jam rewritten by the current build:
$WEBDIET, else the `dist` profile's, or BUILD_PROFILE's)."""

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

from benchlib import children_cpu

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
WEBDIET = os.environ.get("WEBDIET") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
    os.environ.get("BUILD_PROFILE", "dist"), "webdiet")

# The ancillary chunks webdiet keeps (src/image/recompress.rs, KEPT), and tRNS with the pixels.
KEPT = {b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"cICP", b"mDCV", b"cLLI", b"pHYs", b"eXIf",
        b"acTL", b"fcTL", b"fdAT", b"tRNS"}


def chunks(data):
    at = 8
    while at + 12 <= len(data):
        length = struct.unpack(">I", data[at:at + 4])[0]
        name = data[at + 4:at + 8]
        yield name, data[at:at + 12 + length]
        at += 12 + length
        if name == b"IEND":
            return


def strip(data):
    """The PNG with only critical chunks and the ones webdiet keeps."""
    out = [data[:8]]
    for name, raw in chunks(data):
        if name[:1].isupper() or name in KEPT:
            out.append(raw)
    return b"".join(out)


def run_tool(args):
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def thousands(n):
    return f"{n:,}"


def pct(before, after):
    return f"{(after - before) / before * 100:+.1f}%" if before else "±0.0%"


def files_of(site, exts):
    found = []
    for top, _dirs, names in os.walk(site):
        for n in sorted(names):
            p = os.path.join(top, n)
            if n.lower().endswith(exts) and os.path.isfile(p) and not os.path.islink(p):
                found.append(p)
    return sorted(found)


def png_anchors(work, site, name, oxipng):
    """Every PNG of the site through each anchor tool, given the stripped PNG; bytes after
    keep-smaller against the stripped PNG, and CPU seconds."""
    scratch = os.path.join(work, f"png-{name}")
    reuse = os.environ.get("REUSE_ANCHORS") == "1" and os.path.isfile(os.path.join(scratch, "cpu.json"))
    if not reuse:
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
    keep = ",".join(c.decode() for c in sorted(KEPT - {b"tRNS", b"acTL", b"fcTL", b"fdAT"}))
    tools = {
        "oxipng -o max": lambda i, o: [oxipng, "-o", "max", "--strip", "none", "--out", o, i],
        "optipng -o7": lambda i, o: ["optipng", "-quiet", "-o7", "-out", o, i],
        "zopflipng -m": lambda i, o: ["zopflipng", "-m", "-y", f"--keepchunks={keep}", i, o],
    }
    sizes = {t: {} for t in tools}
    cpu = {t: 0.0 for t in tools}
    stripped = {}
    for k, path in enumerate(files_of(site, (".png",))):
        rel = os.path.relpath(path, site)
        data = strip(open(path, "rb").read())
        stripped[rel] = len(data)
        src = os.path.join(scratch, f"{k}.png")
        open(src, "wb").write(data)
        for tool, args in tools.items():
            dst = os.path.join(scratch, f"{k}.{tool.split()[0]}.png")
            if not reuse:
                before = children_cpu()
                run_tool(args(src, dst))
                cpu[tool] += children_cpu() - before
            got = os.path.getsize(dst) if os.path.exists(dst) else len(data)
            sizes[tool][rel] = min(got, len(data))
    cpu_file = os.path.join(scratch, "cpu.json")
    if reuse:
        cpu = json.load(open(cpu_file))
    else:
        json.dump(cpu, open(cpu_file, "w"))
    return stripped, sizes, cpu


def jpeg_anchors(work, shared):
    """Space Jam's JPEGs through jpegtran (libjpeg-turbo), baseline and progressive, and
    mozjpeg's lossless optimisation, every marker copied."""
    import mozjpeg_lossless_optimization as mozjpeg
    site = os.path.join(shared, "corpora", "spacejam")
    scratch = os.path.join(work, "jpeg")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    tools = ["jpegtran -optimize", "jpegtran -optimize -progressive", "mozjpeg jpegtran"]
    out = {t: {} for t in tools}
    cpu = {t: 0.0 for t in tools}
    originals = {}
    for k, path in enumerate(files_of(site, (".jpg", ".jpeg"))):
        rel = os.path.relpath(path, site)
        data = open(path, "rb").read()
        originals[rel] = data
        for tool in tools[:2]:
            dst = os.path.join(scratch, f"{k}.{len(tool)}.jpg")
            before = children_cpu()
            run_tool(["jpegtran", "-copy", "all"] + tool.split()[1:] + ["-outfile", dst, path])
            cpu[tool] += children_cpu() - before
            out[tool][rel] = open(dst, "rb").read() if os.path.exists(dst) else data
        before = os.times()
        try:
            out["mozjpeg jpegtran"][rel] = mozjpeg.optimize(data, copy=mozjpeg.COPY_MARKERS.ALL)
        except ValueError:
            out["mozjpeg jpegtran"][rel] = data
        after = os.times()
        cpu["mozjpeg jpegtran"] += (after.user - before.user) + (after.system - before.system)
    return site, originals, out, cpu


def coded(data):
    """Bytes outside APPn and COM segments: what the entropy coding and tables decide."""
    if data[:2] != b"\xff\xd8":
        return len(data)
    at, meta = 2, 0
    while at + 4 <= len(data) and data[at] == 0xFF:
        code = data[at + 1]
        if code == 0xDA:
            break
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        if 0xE0 <= code <= 0xEF or code == 0xFE:
            meta += 2 + length
        at += 2 + length
    return len(data) - meta


def report(work, shared, oxipng, efforts):
    sites = {
        "sphinx": os.path.join(work, "root/usr/share/doc/sphinx-doc/html"),
        "doxygen": os.path.join(work, "root/usr/share/doc/doxygen/html"),
    }
    print("\n## Per site and effort\n")
    print("| site | effort | site bytes | PNG | JPEG | CSS | CPU s (user+sys) | CPU s/MB | problems |")
    print("|---|---|---:|---|---|---|---:|---:|---:|")
    reports = {}
    for name, site in sites.items():
        site_bytes = sum(os.path.getsize(p) for p in files_of(site, ("",)))
        for effort in efforts:
            path = os.path.join(work, f"out-{name}-{effort}", "report.json")
            if not os.path.exists(path):
                print(f"| {name} | {effort} | – | no report | | | | | |")
                continue
            r = json.load(open(path))
            reports[(name, effort)] = r
            user, system, _rss = open(os.path.join(work, f"time-{name}-{effort}")).read().split()
            cpu_s = float(user) + float(system)
            cells = []
            for kind in ("png", "jpeg", "css"):
                t = (r.get("lossless") or {}).get("totals", {}).get(kind)
                cells.append("–" if not t else
                             f"{t['optimized']}/{t['files']}: {thousands(t['from_bytes'])} → "
                             f"{thousands(t['to_bytes'])} ({pct(t['from_bytes'], t['to_bytes'])})")
            print(f"| {name} | {effort} | {thousands(site_bytes)} | " + " | ".join(cells) +
                  f" | {cpu_s:.1f} | {cpu_s / (site_bytes / 1e6):.2f} | {len(r.get('problems', []))} |")

    print("\n## Compression of the rewritten text (default effort)\n")
    print("| site | text files | raw | deflate 6 | gzip 6 | brotli 5 | brotli 11 | zstd 3 | zstd 19 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in sites:
        r = reports.get((name, "default"))
        c = r and r.get("compression")
        if not c:
            continue
        e = c.get("rewritten") or c["original"]
        t = e["totals"]
        print(f"| {name} | {len(e['files'])} | {thousands(t['raw'])} | " + " | ".join(
            f"{thousands(t[k])} ({pct(t['raw'], t[k])})"
            for k in ("deflate6", "gzip6", "brotli5", "brotli11", "zstd3", "zstd19")) + " |")

    print("\n## What a first visit downloads, default effort (all files, text at brotli 11 / deflate 6)\n")
    for name in sites:
        r = reports.get((name, "default"))
        if not r:
            continue
        ops = r.get("opportunities", [])
        print(f"- {name}: " + "; ".join(
            f"{o['id']} {thousands(o['bytes'])} B" for o in ops if o.get("bytes")))

    print("\n## Render check (default effort, every page)\n")
    for name in sites:
        path = os.path.join(work, f"verify-{name}.json")
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            print(f"- {name}: not run")
            continue
        v = json.load(open(path))
        same = sum(1 for p in v["pages"] if p["differing_pixels"] == 0)
        differing = [f"{p['page']} ({p['differing_pixels']} px)" for p in v["pages"]
                     if p["differing_pixels"]]
        print(f"- {name}: {same} of {len(v['pages'])} pages pixel-identical "
              f"({v['pages_in_both']} in both trees); problems {len(v['problems'])}; "
              f"missing {len(v['missing_in_rewritten'])}; incomplete {v['incomplete']}"
              + (f"; differing: {differing[:10]}" if differing else ""))

    print("\n## PNG against the anchors (the sites' PNGs, chunks webdiet keeps only)\n")
    print("| site | PNGs | stripped input | " + " | ".join(f"webdiet {e}" for e in efforts) +
          " | oxipng -o max | optipng -o7 | zopflipng -m | best of the three per file |")
    print("|---|---:|---:|" + "---:|" * (len(efforts) + 4))
    for name, site in sites.items():
        stripped, sizes, cpu = png_anchors(work, site, name, oxipng)
        if not stripped:
            continue
        total_in = sum(stripped.values())
        best = {rel: min(sizes[t][rel] for t in sizes) for rel in stripped}
        webdiet_cells = []
        for effort in efforts:
            r = reports.get((name, effort))
            rows = {row["path"]: row for row in (r or {}).get("lossless", {}).get("rows", [])
                    if row["kind"] == "png"}
            total = sum(min(rows[rel]["to_bytes"], stripped[rel]) if rel in rows else stripped[rel]
                        for rel in stripped)
            png_cpu = sum(row["cpu_millis"] for row in rows.values()) / 1000
            mb = total_in / 1e6
            webdiet_cells.append(f"{thousands(total)} ({pct(sum(best.values()), total)} vs best; "
                                 f"{png_cpu / mb:.1f} CPU s/MB)")
        anchor_cells = [f"{thousands(sum(sizes[t].values()))} ({cpu[t] / (total_in / 1e6):.1f} CPU s/MB)"
                        for t in sizes]
        print(f"| {name} | {len(stripped)} | {thousands(total_in)} | " + " | ".join(webdiet_cells) +
              " | " + " | ".join(anchor_cells) + f" | {thousands(sum(best.values()))} |")

    jpeg_report(work, shared, efforts)


def jpeg_report(work, shared, efforts):
    """Space Jam's JPEGs: the anchors, and webdiet's rewrite at each effort (run again every
    time, so that the figures are the current build's)."""
    if os.path.isdir(os.path.join(shared, "corpora", "spacejam")):
        site, originals, out, cpu = jpeg_anchors(work, shared)
        print("\n## JPEG against the anchors (Space Jam's JPEGs)\n")
        print("bytes outside APPn/COM segments (what the coding decides), whole files in brackets\n")
        total_in = sum(len(d) for d in originals.values())
        print(f"- originals: {len(originals)} JPEGs, {thousands(sum(coded(d) for d in originals.values()))} "
              f"({thousands(total_in)})")
        best = {rel: min(coded(out[t][rel]) for t in out) for rel in originals}
        for t in out:
            c = sum(min(coded(out[t][rel]), coded(originals[rel])) for rel in originals)
            w = sum(min(len(out[t][rel]), len(originals[rel])) for rel in originals)
            print(f"- {t}: {thousands(c)} ({thousands(w)}), {cpu[t] / (total_in / 1e6):.2f} CPU s/MB")
        print(f"- best of the three per file: {thousands(sum(best.values()))}")
        for effort in efforts:
            path = os.path.join(work, f"out-spacejam-{effort}", "report.json")
            subprocess.run([WEBDIET,
                            "rewrite", site, "--out", os.path.dirname(path), "--effort", effort,
                            "--no-markup", "--quiet", "--force"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            r = json.load(open(path))
            rows = {row["path"]: row for row in r["lossless"]["rows"] if row["kind"] == "jpeg"}
            written = os.path.join(os.path.dirname(path), "site")
            c = w = 0
            for rel, data in originals.items():
                new = open(os.path.join(written, rel), "rb").read()
                c += min(coded(new), coded(data))
                w += len(new)
            jcpu = sum(row["cpu_millis"] for row in rows.values()) / 1000
            outcomes = {}
            for row in rows.values():
                outcomes[row["outcome"]] = outcomes.get(row["outcome"], 0) + 1
            print(f"- webdiet {effort}: {thousands(c)} ({thousands(w)}), {jcpu / (total_in / 1e6):.2f} CPU s/MB, "
                  f"{pct(sum(best.values()), c)} vs best; outcomes {outcomes}")


if __name__ == "__main__":
    if sys.argv[1] == "strip":
        sys.stdout.buffer.write(strip(open(sys.argv[2], "rb").read()))
    elif sys.argv[1] == "jpeg":
        jpeg_report(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        report(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
