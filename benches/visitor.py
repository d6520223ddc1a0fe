#!/usr/bin/env python3
"""The simulated browser against Chromium (docs/simulation.md, "The visitor").

Audits pages with `--client chromium` over emulated links (h2 and HTTP/1.1, a first visit and
a repeat visit, the original and the rewritten site), and sets each Chromium median beside the
simulated load of the same page, version, link, protocol and visit (`report.json`'s `browser`
and `visitor`). Prints, per link and metric, the mean absolute percentage error, the worst row
and how many savings have Chromium's sign, and writes every row to OUT/rows.jsonl.

  benches/visitor.py [--runs N] [--links L;L…] [--out DIR] [--pages LABEL,…] [--build]
  benches/visitor.py --calibrate     # Chromium's own time, over a link that costs nothing

--calibrate loads the pages over a 200 Mbit/s link of 2 ms RTT, where the network is a few
milliseconds, and prints what Chromium took beyond the simulated network for each milestone
(the median over rows): the figures of `Cpu::CHROMIUM` (src/sim/paint/mod.rs). Run it on an
idle machine; the figures are main-thread times and scale with the machine's load.

Pages: microscape (corpus/), the Space Jam index and two W3C libwww pages (../shared/corpora),
and three pages each of two documentation sites from Debian packages that the repository does
not hold (gri-html-doc and dx-doc, fetched with `apt-get download` into target/visitor-sites/).
Needs a release build (--build makes one), Chromium, and the emulated links (root or user
namespaces). Records `uptime` before and after.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("WEBDIET_SHARED", os.path.join(ROOT, "..", "shared"))
SITES_DIR = os.path.join(ROOT, "target", "visitor-sites")
FAST_LINK = "down=200mbit,up=200mbit,rtt=2ms"
DEFAULT_LINKS = ["Cable", "DSL", "3G", "lighthouse-mobile"]


def debian_site(package, subdir):
    """A Debian documentation package's HTML, unpacked once under target/visitor-sites/."""
    dest = os.path.join(SITES_DIR, package)
    html = os.path.join(dest, subdir)
    if not os.path.isdir(html):
        os.makedirs(dest, exist_ok=True)
        subprocess.run(["apt-get", "download", package], cwd=SITES_DIR, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deb = next(f for f in os.listdir(SITES_DIR) if f.startswith(package + "_"))
        subprocess.run(["dpkg-deb", "-x", os.path.join(SITES_DIR, deb), dest], check=True)
    return html


def pages():
    """(label, site directory, page) of every page the validation loads."""
    out = [("microscape", os.path.join(ROOT, "corpus", "microscape"), "index.html")]
    corpora = os.path.join(SHARED, "corpora")
    if os.path.isdir(corpora):
        out.append(("spacejam", os.path.join(corpora, "spacejam"), "index.html"))
        libwww = os.path.join(corpora, "libwww-docs")
        out.append(("libwww-screenshots", libwww, "WinCom/ScreenShots.html"))
        out.append(("libwww-windll", libwww, "Library/User/Platform/WinDLL.html"))
    gri = debian_site("gri-html-doc", "usr/share/doc/gri/html")
    for page in ["index.html", "Set.html", "ContouringExample.html"]:
        out.append(("gri-" + page.split(".")[0].lower(), gri, page))
    dx = debian_site("dx-doc", "usr/share/doc/dx/html")
    # index.htm is a link to allguide.htm, which is the page a visitor gets.
    for page in ["allguide.htm", "pages/usrgu043.htm", "pages/refgu077.htm"]:
        out.append(("dx-" + os.path.basename(page).split(".")[0], dx, page))
    return [p for p in out if os.path.isfile(os.path.join(p[1], p[2]))]


METRICS = [("ttfb", "ttfb_ms"), ("fcp", "fcp_ms"), ("lcp", "lcp_ms"),
           ("dcl", "dcl_ms"), ("load", "load_ms")]
CHROMIUM_METRIC = {"ttfb": "ttfb_ms", "fcp": "fcp_ms", "lcp": "lcp_ms",
                   "dcl": "dom_content_loaded_ms", "load": "load_ms"}
SIMULATED_AS = {("persistent", "first"): ("http1", "first"), ("h2", "first"): ("h2", "first"),
                ("persistent", "validate"): ("http1", "repeat"), ("h2", "validate"): ("h2", "repeat")}


def audit(webdiet, label, site, page, link, runs, out):
    """One audit with Chromium over `link`; the rows it gives."""
    report_dir = tempfile.mkdtemp(prefix="visitor-", dir=out)
    cmd = [webdiet, "audit", site, "--page", page, "--client", "chromium", "--link", link,
           "--modes", "h2,persistent", "--runs", str(runs), "--max-runs", str(runs),
           "--out", report_dir, "--quiet"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    path = os.path.join(report_dir, "report.json")
    if not os.path.isfile(path):
        print(f"{label} over {link}: audit failed: {done.stderr[-400:]}", file=sys.stderr)
        return []
    report = json.load(open(path))
    visitor = report.get("visitor") or {}
    rows = []
    for b in report.get("browser", []):
        key = SIMULATED_AS.get((b["mode"], b["test"]))
        if key is None:
            continue
        speaks, visit = key
        lp = next((l for l in visitor.get("links", []) if l["link"].lower() == b["link"]["name"].lower()
                   and l["speaks"] == speaks and l["visit"] == visit), None)
        pr = lp and next((p for p in lp["pages"] if p["page"] == b["page"]), None)
        if not pr:
            continue
        sim = pr[b["site"]]
        for name, field in METRICS:
            measured = b["metrics"].get(CHROMIUM_METRIC[name])
            if not measured:
                continue
            rows.append({"page": label, "site": b["site"], "link": b["link"]["name"],
                         "mode": b["mode"], "test": b["test"], "metric": name,
                         "measured": measured["median"], "q1": measured["q1"], "q3": measured["q3"],
                         "simulated": sim[field], "cpu": visitor.get("cpu", {})})
    return rows


def summarise(rows):
    by = {}
    for r in rows:
        by.setdefault((r["link"], r["metric"]), []).append(r)
    print(f"{'link':<20} {'metric':<6} {'rows':>4} {'MAPE':>7} {'worst':>8}  worst row")
    for (link, metric), rs in sorted(by.items()):
        errs = [(100 * (r["simulated"] - r["measured"]) / r["measured"], r) for r in rs]
        mape = statistics.fmean(abs(e) for e, _ in errs)
        worst, wr = max(errs, key=lambda x: abs(x[0]))
        print(f"{link:<20} {metric:<6} {len(rs):>4} {mape:>6.1f}% {worst:>+7.1f}%  "
              f"{wr['page']} {wr['site']} {wr['mode']} {wr['test']}")
    # Signs: savings Chromium measured beyond its interquartile ranges.
    pairs = {}
    for r in rows:
        pairs.setdefault((r["page"], r["link"], r["mode"], r["test"], r["metric"]), {})[r["site"]] = r
    right = total = 0
    for key, p in pairs.items():
        if "original" not in p or "rewritten" not in p or key[4] not in ("fcp", "lcp", "load"):
            continue
        o, w = p["original"], p["rewritten"]
        if o["q1"] <= w["q3"] and w["q1"] <= o["q3"]:
            continue
        total += 1
        right += (w["measured"] - o["measured"] > 0) == (w["simulated"] - o["simulated"] > 0)
    print(f"savings measured beyond Chromium's spread with the simulated sign: {right} of {total}")


def calibrate(rows):
    """Chromium's own time beyond the simulated network, per milestone (median over rows)."""
    # The fast link is not a named one: its simulation adds no CPU ("none: the network alone"),
    # so the residual is all of Chromium's own time.
    cpu = rows[0]["cpu"] if rows else {}
    cpu = cpu if isinstance(cpu, dict) else {}
    nav = cpu.get("navigation_ns", 0) / 1e6
    known = {"ttfb": nav, "fcp": nav + cpu.get("fcp_ns", 0) / 1e6,
             "lcp": nav + cpu.get("lcp_ns", 0) / 1e6, "dcl": nav + cpu.get("dcl_ns", 0) / 1e6,
             "load": nav + cpu.get("load_ns", 0) / 1e6}
    residual = {}
    for r in rows:
        network = r["simulated"] - known[r["metric"]]
        residual.setdefault(r["metric"], []).append(r["measured"] - network)
    med = {m: statistics.median(v) for m, v in residual.items()}
    navigation = med.get("ttfb", 0.0)
    figures = [navigation] + [max(0.0, med.get(m, navigation) - navigation)
                              for m in ("fcp", "lcp", "dcl", "load")]
    print("Chromium's own time (ms): navigation, FCP, LCP, DCL, load:",
          ", ".join(f"{f:.1f}" for f in figures))
    print("CALIBRATED = [" + ", ".join(f"{int(round(f * 1e6)):_}" for f in figures) + "];")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--links", default=";".join(DEFAULT_LINKS))
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "visitor"))
    ap.add_argument("--pages", default="")
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument("--build", action="store_true")
    args = ap.parse_args()
    if args.build:
        subprocess.run(["cargo", "build", "--release", "--bin", "webdiet"], cwd=ROOT, check=True)
    webdiet = os.environ.get("WEBDIET", os.path.join(ROOT, "target", "release", "webdiet"))
    os.makedirs(args.out, exist_ok=True)
    links = [FAST_LINK] if args.calibrate else [l for l in args.links.split(";") if l]
    chosen = [p for p in pages() if not args.pages or p[0] in args.pages.split(",")]
    print("# load before:", open("/proc/loadavg").read().strip(), flush=True)
    rows = []
    for label, site, page in chosen:
        for link in links:
            got = audit(webdiet, label, site, page, link, args.runs, args.out)
            print(f"{label} over {link}: {len(got)} rows", file=sys.stderr, flush=True)
            rows.extend(got)
    print("# load after:", open("/proc/loadavg").read().strip())
    with open(os.path.join(args.out, "rows.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    if args.calibrate:
        calibrate(rows)
    else:
        summarise(rows)


if __name__ == "__main__":
    main()
