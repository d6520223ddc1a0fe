#!/usr/bin/env bash
# Benchmark (not a test): how often the same tree, rendered twice by `webdiet verify SITE SITE`,
# differs, on a machine kept busy by HOGS busy-looping processes (default 6 on 2 cores: load
# about 10). Prints, for each of RUNS runs (default 10), the differing pixels verify settled on
# and whether it had to render a page again (retried), then the totals. docs/markup.md records
# the results; run it at the commit before and after a change to Chromium's flags.
#
#   benches/render-determinism.sh SITE            # HOGS=0 for an idle machine
#
# Needs: chromium, a webdiet build (WEBDIET=path; default target/release/webdiet).
set -uo pipefail
cd "$(dirname "$0")/.."
SITE=${1:?usage: benches/render-determinism.sh SITE}
RUNS=${RUNS:-10}
HOGS=${HOGS:-6}
WEBDIET=${WEBDIET:-${CARGO_TARGET_DIR:-target}/release/webdiet}
[ -x "$WEBDIET" ] || { echo "no $WEBDIET: cargo build --release first (or set WEBDIET)"; exit 1; }
WORK=$(mktemp -d)
hogs=()
cleanup() { [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
for _ in $(seq 1 "$HOGS"); do (while :; do :; done) & hogs+=($!); done
sleep 5
echo "$("$WEBDIET" --version), $HOGS hogs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
retried=0 differing=0
for i in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/diff"
  "$WEBDIET" verify "$SITE" "$SITE" --out "$WORK/diff" --json >"$WORK/v.json" 2>/dev/null
  line=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
px = sum(p["differing_pixels"] for p in r["pages"])
again = sum(1 for p in r["pages"] if p["retried"])
print(px, again)' "$WORK/v.json")
  read -r px again <<<"$line"
  echo "run $i: $px px differing, $again page(s) rendered again"
  [ "$again" -gt 0 ] && retried=$((retried + 1))
  [ "$px" -gt 0 ] && differing=$((differing + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "of $RUNS runs: $retried rendered a page again, $differing still differed"
