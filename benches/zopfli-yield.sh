#!/bin/sh
# What `max`'s Zopfli pass would save at `--effort default`, and at what CPU (docs/images.md,
# "What `default` within 0.5 % would cost"): converts every still GIF of CORPUS at `default`,
# runs the Zopfli pass over each result with 1 and 3 iterations (the ignored test
# `image::zopfli_yield`, one thread), then prints the totals, the best any choice of images
# could do (the most bytes per CPU second first, chosen with hindsight) and size rules that can
# be known beforehand. TARGET=B: the still bytes to reach (Space Jam: 1,386,666, the best of
# all tools + 0.5 %).
# Usage: benches/zopfli-yield.sh [CORPUS]   (default ../shared/corpora/spacejam; the test
#        is built in the `dist` profile of published binaries, BUILD_PROFILE=release the quick one)
set -eu
cd "$(dirname "$0")/.."
corpus=$(realpath "${1:-../shared/corpora/spacejam}")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average$(uptime | sed 's/.*load average://'), $corpus"
CORPUS="$corpus" OUT="$out" cargo test --profile "${BUILD_PROFILE:-dist}" --quiet --lib zopfli_yield \
    -- --ignored >/dev/null
python3 - "$out" "${TARGET:-0}" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
target = float(sys.argv[2])
n = lambda r, k: float(r[k])
gif = sum(n(r, 'gif') for r in rows)
base = sum(n(r, 'default') for r in rows)
cpu = sum(n(r, 'cpu_default') for r in rows)
rate = lambda extra: (cpu + extra) / gif * 1e6
print(f"{len(rows)} still GIFs, {gif:,.0f} B; default {base:,.0f} B at {rate(0):.2f} CPU s/MB")
for k in ['z1', 'z3']:
    gain = [(n(r, 'default') - n(r, k), n(r, 'cpu_' + k), n(r, 'default')) for r in rows]
    extra = sum(c for _, c, _ in gain)
    print(f"{k}: Zopfli on every image {base - sum(g for g, _, _ in gain):,.0f} B at {rate(extra):.2f} s/MB")
    if target:
        left, spent = base, 0.0
        for g, c, _ in sorted(gain, key=lambda t: -t[0] / max(t[1], 1e-9)):
            if left <= target:
                break
            left, spent = left - g, spent + c
        verdict = f"reached at {rate(spent):.2f} s/MB" if left <= target else f"not reached ({left:,.0f} B at best)"
        print(f"{k}: with hindsight, {target:,.0f} B {verdict}")
    for lo, hi in [(0, 4000), (1200, 4000), (1200, 16000), (1200, 32000), (1200, 10**12)]:
        sel = [(g, c) for g, c, d in gain if lo <= d < hi]
        print(f"{k}: results of {lo:,} to {hi:,} B: {base - sum(g for g, _ in sel):,.0f} B at {rate(sum(c for _, c in sel)):.2f} s/MB")
PY
