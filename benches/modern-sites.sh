#!/usr/bin/env bash
# Benchmark (not a test): the whole rewrite on real documentation sites made by today's
# generators, from Debian's packages (Sphinx's own manual, `sphinx-doc`; Doxygen's own manual,
# made by Doxygen, `doxygen-doc`), and the images against the anchor tools on the same files.
# Prints what docs/modern-sites.md records:
#   1. per site and --effort: bytes saved per kind (PNG, JPEG, CSS) and by compression
#      (deflate 6, brotli 5/11, zstd 3/19), CPU (user + system of the whole `webdiet audit
#      --no-replay`: crawl, rewrite, every compression estimate) per MB of site;
#   2. `webdiet verify` of every page of each rewritten site (default effort): pixel-identical
#      pages, scripts run on virtual time (docs/browser.md);
#   3. the site's PNGs against `oxipng -o max`, `optipng -o7` and `zopflipng -m`, and
#      Space Jam's JPEGs (../shared/corpora/spacejam; the doc sites have none) against
#      libjpeg-turbo's `jpegtran -optimize [-progressive]` and mozjpeg's (its lossless
#      optimisation through the PyPI package mozjpeg-lossless-optimization).
#
#   benches/modern-sites.sh [WORK_DIR]          # default WORK_DIR: target/modern-sites
#   EFFORTS="default" benches/modern-sites.sh   # fewer levels
#   VERIFY=0 benches/modern-sites.sh            # skip the render check
#   REUSE_ANCHORS=1 benches/modern-sites.sh     # the PNG anchors' outputs and CPU from the last run
#
# Needs (Debian): apt-get install -y optipng zopfli libjpeg-turbo-progs chromium
# fonts-liberation fonts-dejavu-core; `cargo install oxipng --version 10.2.1` (Debian 12 has
# no oxipng; its directory on PATH or OXIPNG=/path/to/oxipng); `pip install
# mozjpeg-lossless-optimization==1.3.2`. The packages are fetched with `apt-get download` into
# WORK_DIR and unpacked there; nothing of them is committed.
#
# Fairness: every PNG tool gets the PNG with exactly the chunks webdiet keeps (the chunks no
# browser draws with already removed, by `modern-sites.py strip`) and keeps them (`oxipng` and
# `optipng` keep chunks by default; `zopflipng --keepchunks=…`), so all compete on the image
# data alone. JPEG tools copy every marker (`-copy all`); the JPEG table compares the bytes
# outside APPn/COM segments (what the coding decides), and the whole files apart.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT_DIR=$PWD
WORK=${1:-target/modern-sites}
EFFORTS=${EFFORTS:-"fast default max"}
VERIFY=${VERIFY:-1}
SHARED=${WEBDIET_SHARED:-../shared}
OXIPNG=${OXIPNG:-$(command -v oxipng || true)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

for tool in optipng zopflipng jpegtran python3 dpkg-deb apt-get; do
  command -v $tool >/dev/null || { echo "$tool is missing (see the header of $0)"; exit 1; }
done
[ -x "$OXIPNG" ] || { echo "oxipng is missing: cargo install oxipng --version 10.2.1"; exit 1; }
python3 -c 'import mozjpeg_lossless_optimization' 2>/dev/null ||
  { echo "pip install mozjpeg-lossless-optimization==1.3.2"; exit 1; }

# The `dist` profile of published binaries (BUILD_PROFILE=release: the quick build); exported
# for modern-sites.py, which runs the same binary.
export BUILD_PROFILE=${BUILD_PROFILE:-dist}
cargo build --profile "$BUILD_PROFILE" --locked --quiet
WEBDIET=$(cd "${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE" && pwd)/webdiet
export WEBDIET

# shellcheck source=benches/doc-sites.sh
source benches/doc-sites.sh
fetch_doc_sites "$WORK"
declare -A SITES=(
  [sphinx]=$WORK/root/usr/share/doc/sphinx-doc/html
  [doxygen]=$WORK/root/usr/share/doc/doxygen/html
)

echo "machine: $(nproc) cores, $(uname -sr); $(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "packages: $(cd "$WORK" && ls *.deb | tr '\n' ' ')"
echo "anchors: $(optipng -v | head -1); zopflipng $(dpkg-query -W -f '${Version}' zopfli); \
$("$OXIPNG" --version); jpegtran (libjpeg-turbo $(dpkg-query -W -f '${Version}' libjpeg-turbo-progs)); \
mozjpeg-lossless-optimization $(python3 -c 'import importlib.metadata as m; print(m.version("mozjpeg-lossless-optimization"))')"

for name in sphinx doxygen; do
  site=${SITES[$name]}
  for effort in $EFFORTS; do
    out=$WORK/out-$name-$effort
    rm -rf "$out"
    /usr/bin/time -f "%U %S %M" -o "$WORK/time-$name-$effort" \
      "$WEBDIET" audit "$site" --out "$out" --effort "$effort" --precompress --no-replay --quiet --force \
      >/dev/null 2>"$WORK/stderr-$name-$effort" || true
    echo "load after $name $effort: $(cut -d' ' -f1-3 /proc/loadavg)"
  done
  if [ "$VERIFY" = 1 ]; then
    "$WEBDIET" verify "$site" "$WORK/out-$name-default/site" --json --force \
      --out "$WORK/verify-$name" >"$WORK/verify-$name.json" 2>/dev/null || true
  fi
done

python3 "$ROOT_DIR/benches/modern-sites.py" report "$WORK" "$SHARED" "$OXIPNG" $EFFORTS
