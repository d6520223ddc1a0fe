#!/bin/sh
# Times `webdiet verify` on a sample of Space Jam against an unchanged copy of itself (every
# page must come out identical) and prints the wall time per page.
# Usage: benches/verify.sh [PAGES]   (default 40; needs chromium and ../shared/corpora/spacejam, or SPACEJAM=DIR)
# Builds the `dist` profile of published binaries (BUILD_PROFILE=release: the quick build).
set -eu
cd "$(dirname "$0")/.."
pages=${1:-40}
corpus=${SPACEJAM:-../shared/corpora/spacejam}
[ -d "$corpus" ] || { echo "missing $corpus" >&2; exit 2; }
BUILD_PROFILE=${BUILD_PROFILE:-dist}
cargo build --profile "$BUILD_PROFILE" --quiet
webdiet=${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE/webdiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$corpus" "$tmp/spacejam"
start=$(date +%s.%N)
"$webdiet" verify "$corpus" "$tmp/spacejam" --pages "$pages" --out "$tmp/out"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$pages" \
    'BEGIN { printf "%d pages in %.1f s: %.2f s per page\n", n, e - s, (e - s) / n }'
