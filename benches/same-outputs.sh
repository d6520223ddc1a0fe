#!/usr/bin/env bash
# Check (not a test): two binaries rewrite the same sites into byte-identical trees. A change
# meant to make the rewrite cheaper (issue 39: a table page with a colour on every row) must
# not change one byte it writes, for the default `--css` choice and for `--css site-sheet` and
# `--css per-page`. Runs `webdiet rewrite` of each site with each binary and `diff -r`s the
# two `site/` trees; prints one line per site and mode, and exits 1 if any differ.
#
#   OLD=/tmp/old/target/release/webdiet benches/same-outputs.sh [SITE...]
#
# The sites default to corpus/microscape and ../shared/corpora/{spacejam,libwww-docs} (those
# missing are skipped). NEW defaults to this checkout's release build.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${WEBDIET_SHARED:-../shared}
NEW=${NEW:-${CARGO_TARGET_DIR:-target}/release/webdiet}
: "${OLD:?set OLD to the other binary}"
[ $# -gt 0 ] || set -- corpus/microscape "$SHARED/corpora/spacejam" "$SHARED/corpora/libwww-docs"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
status=0
for site in "$@"; do
  [ -d "$site" ] || { echo "skipped: $site is missing"; continue; }
  for mode in default site-sheet per-page; do
    args=()
    [ "$mode" = default ] || args=(--css "$mode")
    for which in old new; do
      bin=$OLD
      [ "$which" = old ] || bin=$NEW
      rm -rf "$WORK/$which"
      "$bin" rewrite "$site" --out "$WORK/$which" --quiet "${args[@]}" >/dev/null 2>"$WORK/err" ||
        { echo "$which binary failed on $site ($mode):"; cat "$WORK/err"; exit 2; }
    done
    files=$(find "$WORK/new/site" -type f | wc -l)
    if diff -r "$WORK/old/site" "$WORK/new/site" >"$WORK/diff"; then
      echo "same       $site --css $mode ($files files)"
    else
      echo "DIFFERENT  $site --css $mode:"
      head -20 "$WORK/diff"
      status=1
    fi
  done
done
exit $status
