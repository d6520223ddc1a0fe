#!/usr/bin/env bash
# Benchmark (not a test): the script minifier (src/js/) on real scripts, the `.js` files of the
# Debian packages .ci/package-corpus.sh unpacks (target/package-corpus/root, or
# $WEBDIET_PACKAGE_CORPUS/root). Prints what docs/modern-sites.md ("Scripts") records:
#   1. the corpus test's summary (a debug build): files, how many oxc read and proved, kept and
#      why, bytes before and after, seconds;
#   2. `webdiet rewrite` of a site made of those files: its report's JS totals (optimized, or
#      `kept:larger` where nothing was left to remove), and the CPU it took;
#   3. with node (Debian: nodejs), an independent parser: acorn, which node bundles, reads each
#      original and its rewritten copy (as a script, or else as a module) and compares the trees
#      with positions left out and every literal's `raw` text kept (benches/package-scripts.js).
#
#   benches/package-scripts.sh [WORK_DIR]      # default WORK_DIR: target/package-scripts
#   BUILD_PROFILE=dev benches/package-scripts.sh   # the debug binary (default: release)
#
# Needs the package corpus (bash .ci/package-corpus.sh) and `cargo build --profile
# $BUILD_PROFILE --bins`. The files are copied into WORK_DIR; nothing of them is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-target/package-scripts}")
corpus=${WEBDIET_PACKAGE_CORPUS:-target/package-corpus}
BUILD_PROFILE=${BUILD_PROFILE:-release}
dir=$BUILD_PROFILE
[ "$dir" = dev ] && dir=debug
bin=${CARGO_TARGET_DIR:-target}/$dir/webdiet
[ -d "$corpus/root" ] || { echo "no $corpus/root: bash .ci/package-corpus.sh first"; exit 1; }
[ -x "$bin" ] || { echo "no $bin: cargo build --profile $BUILD_PROFILE --bins first"; exit 1; }
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(git rev-parse --short=12 HEAD), load average$(uptime | sed 's/.*load average://')"

echo "## 1. the corpus test (debug build)"
WEBDIET_PACKAGE_CORPUS=$(realpath "$corpus") cargo test --quiet --lib js::tests::corpus -- --nocapture 2>&1 |
  grep -E '^(package scripts|  kept)'

echo "## 2. webdiet rewrite ($BUILD_PROFILE) of the scripts as one site"
rm -rf "$work" && mkdir -p "$work/site"
(cd "$corpus/root" && find . -name '*.js' -type f ! -name '.*' -print0 | xargs -0 cp --parents -t "$work/site")
/usr/bin/time -f '%U %S' -o "$work/time" "$bin" rewrite "$work/site" --out "$work/out" --quiet >/dev/null || true
python3 - "$work/out/report.json" "$work/time" <<'PY'
import collections, json, sys
report = json.load(open(sys.argv[1]))
rows = [r for r in report["lossless"]["rows"] if r["kind"] == "js"]
t = report["lossless"]["totals"]["js"]
user, system = map(float, open(sys.argv[2]).read().split())
print(f"files {t['files']}, optimized {t['optimized']}, {t['from_bytes']:,} -> {t['to_bytes']:,} bytes "
      f"({100 * (t['from_bytes'] - t['to_bytes']) / t['from_bytes']:.1f} % saved); whole rewrite {user + system:.1f} CPU s")
print("outcomes:", dict(collections.Counter(r["outcome"] for r in rows)))
PY

echo "## 3. acorn, independent of oxc, on each original and its copy"
if command -v node >/dev/null; then
  node --expose-internals --stack-size=10000 benches/package-scripts.js "$work/site" "$work/out/site"
else
  echo "node is not installed: skipped"
fi
