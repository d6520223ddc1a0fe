#!/bin/sh
# What `--effort default` would cost to come within 1 % of the PNG anchors (issue 26), with
# images picked in hindsight (docs/modern-sites.md, "What is still open"): rewrites SITE at
# `default` and at `max`, then, from the two reports' rows for the site's own PNGs (copies of
# one content counted once for CPU, as the rewrite does), takes `max`'s result for the
# contents that save the most bytes per extra CPU second first, and prints each step's total
# against BEST (the best of the three anchors per file; Doxygen's manual: 981,610 B,
# docs/modern-sites.md) and default's CPU per MB of PNG. The CPU of a step is `max`'s for that
# content less `default`'s: a lower bound, as no rule known beforehand picks as well.
# Usage: benches/png-yield.sh SITE [BEST]   (NO_BUILD=1 skips the build: the `dist` profile
#        of published binaries, or BUILD_PROFILE=release, the quick one)
set -eu
cd "$(dirname "$0")/.."
BUILD_PROFILE=${BUILD_PROFILE:-dist}
[ -n "${NO_BUILD:-}" ] || nice -n 10 cargo build --profile "$BUILD_PROFILE" --quiet
webdiet=$(realpath "${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE/webdiet")
site=$(realpath "$1")
best=${2:-981610}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average$(uptime | sed 's/.*load average://'), $site"
for effort in default max; do
    "$webdiet" rewrite "$site" --out "$tmp/$effort" --quiet --effort "$effort" \
        --no-minify >/dev/null
done
python3 - "$tmp" "$site" "$best" <<'PY'
import collections, hashlib, json, os, sys
tmp, site, best = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = {}
for effort in ('default', 'max'):
    report = json.load(open(os.path.join(tmp, effort, 'report.json')))
    rows[effort] = {r['path']: r for r in report['lossless']['rows'] if r['kind'] == 'png'}
d, m = rows['default'], rows['max']
png_in = sum(r['from_bytes'] for r in d.values())
total = sum(r['to_bytes'] for r in d.values())
cpu = sum(r['cpu_millis'] for r in d.values()) / 1000
rate = lambda extra: (cpu + extra) / png_in * 1e6
print(f"{len(d)} PNGs, {png_in:,} B; default {total:,} B ({total / best * 100 - 100:+.2f} %) "
      f"at {rate(0):.1f} CPU s/MB; max {sum(r['to_bytes'] for r in m.values()):,} B at "
      f"{sum(r['cpu_millis'] for r in m.values()) / 1000 / png_in * 1e6:.1f} s/MB; "
      f"within 1 %: {best * 1.01:,.0f} B")
contents = collections.defaultdict(list)
for path in d:
    with open(os.path.join(site, path), 'rb') as f:
        contents[hashlib.sha256(f.read()).hexdigest()].append(path)
steps = []
for paths in contents.values():
    gain = sum(d[p]['to_bytes'] - min(m[p]['to_bytes'], d[p]['to_bytes']) for p in paths)
    # The CPU is on the first copy; the others show 0.
    extra = max(m[p]['cpu_millis'] for p in paths) - max(d[p]['cpu_millis'] for p in paths)
    steps.append((gain, max(extra, 0) / 1000, len(paths), d[paths[0]]['to_bytes']))
steps.sort(key=lambda s: -s[0] / max(s[1], 1e-6))
extra = 0
reached = False
for i, (gain, cost, copies, size) in enumerate(steps):
    if gain <= 0:
        break
    total -= gain
    extra += cost
    if i < 12 or (not reached and total <= best * 1.01):
        print(f"  +{i + 1:3} contents: {total:,} B ({total / best * 100 - 100:+.2f} %) at "
              f"{rate(extra):.1f} s/MB (this one: {gain:,} B over {copies} copies of "
              f"{size:,} B, {cost:.2f} s)")
    if not reached and total <= best * 1.01:
        reached = True
        print(f"  within 1 % after {i + 1} contents, at {rate(extra):.1f} s/MB "
              f"({rate(extra) / rate(0):.1f}x default)")
if not reached:
    print(f"  never within 1 %: {total:,} B at best")
PY
