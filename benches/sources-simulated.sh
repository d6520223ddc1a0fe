#!/usr/bin/env bash
# docs/sources.md's tables in simulated time: the 1997 preliminary table (today's Linux TCP and
# the 1997 stack, --tcp-1997) and SPDY's loss and RTT sweeps on spdy-cable, from `audit`'s
# loopback recording of corpus/microscape, simulated (20 loss seeds per lossy point). Simulated
# time does not depend on the machine or its load, so one run is the figure; each audit still
# takes the timing tests' lock so it never runs beside a measurement.
#
#   benches/sources-simulated.sh [OUT_DIR]    (default target/sources-simulated)
#
# Prints the Markdown tables docs/sources.md shows.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/sources-simulated}
LOCK="${TMPDIR:-/tmp}/webdiet-timing-tests.lock"
cargo build --release --locked 2>&1 | tail -1 >&2
BIN=$PWD/target/release/webdiet
mkdir -p "$OUT"
run() {
    local name=$1
    shift
    [ -s "$OUT/$name/report.json" ] && return
    flock "$LOCK" "$BIN" audit corpus/microscape --out "$OUT/$name" --force "$@" > "$OUT/$name.log" 2>&1
}
run t1 --modes http10,persistent,pipelined --connections 6 --link lan-1997,wan-1997,ppp-1997
run t1-1997 --modes http10,persistent,pipelined --connections 6 --link lan-1997,wan-1997,ppp-1997 --tcp-1997
run loss --modes http10,pipelined,https10,h2c,h2 --connections 6 --tests first \
    --link spdy-cable --sweep loss=0,0.5,1,1.5,2,2.5
run rtt --modes http10,pipelined,https10,h2c,h2 --connections 6 --tests first \
    --link spdy-cable,loss=0 --sweep rtt=20,40,60,80,120,160,200
echo "build: $(git rev-parse --short HEAD), $(date -u +%Y-%m-%d)"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]

def rows(name):
    r = json.load(open(f"{out}/{name}/report.json"))
    return [x for x in r["replay"] if x["site"] == "original" and x["link"]["name"] != "loopback"]

def sim(row, q="median"):
    return row["simulated_time"]["complete_ms"][q]

print("\n1997 preliminary table, simulated page complete in seconds, first visit / validation:\n")
print("| link | mode | today's Linux TCP (Reno, IW10, 1 s RTO, SACK) | 1997 TCP (Reno, IW2, 3 s RTO, no SACK) |")
print("|---|---|---:|---:|")
today, old = rows("t1"), rows("t1-1997")
def find(rs, link, mode, test):
    return next(x for x in rs if x["link"]["name"] == link and x["mode"] == mode and x["test"] == test)
for link in ("lan-1997", "wan-1997", "ppp-1997"):
    for mode in ("http10", "persistent", "pipelined"):
        cell = lambda rs: " / ".join(f'{sim(find(rs, link, mode, t)) / 1000:.2f}' for t in ("first", "validate"))
        print(f"| {link} | {mode} | {cell(today)} | {cell(old)} |")

for name, key in (("loss", "loss"), ("rtt", "rtt")):
    rs = rows(name)
    links = []
    for x in rs:
        if x["link"]["name"] not in links:
            links.append(x["link"]["name"])
    print(f"\nspdy-cable {key} sweep, first visit, simulated page complete in ms: median (25–75% over the seeds); saving against http10 (h2 against https10):\n")
    print("| link | http10 | pipelined (saving) | h2c (saving) | https10 | h2 (saving vs https10) |")
    print("|---|---:|---:|---:|---:|---:|")
    for link in links:
        get = lambda m: next(x for x in rs if x["link"]["name"] == link and x["mode"] == m)
        def cell(m, base=None):
            x = get(m)
            s = f"{sim(x):,.0f}"
            if x["simulated_time"]["complete_ms"]["runs"] > 1:
                s += f' ({sim(x, "q1"):,.0f}–{sim(x, "q3"):,.0f})'
            if base:
                s += f" ({100 * (1 - sim(x) / sim(get(base))):.0f}%)"
            return s
        print(f"| {link} | {cell('http10')} | {cell('pipelined', 'http10')} | {cell('h2c', 'http10')} | {cell('https10')} | {cell('h2', 'https10')} |")
PY
