#!/usr/bin/env bash
# Benchmark (not a test): memory and time of reading a web archive, against its size. For each
# size, make-archives writes microscape's capture followed by third-party records of 64 MiB of
# pseudo-random bytes (gzip cannot shrink them) until the WARC holds about that many bytes; then
# `webdiet analyze` (the index pass over every record, the site's captures written out and
# crawled) and `webdiet audit --no-replay --dry-run` (the same, plus the rewrite and deflate
# estimates) run under GNU time. Prints the archive's bytes, peak RSS, wall and CPU time
# (user + system). Record results in docs/archives.md with `uptime` (printed before and after).
#
#   benches/archive-memory.sh                        # SIZES="0 3221225472" (the capture alone, 3 GiB)
#   SIZES="0 268435456 1073741824" benches/archive-memory.sh
#
# Needs: GNU time (/usr/bin/time), a build in the `dist` profile of published binaries
# (cargo build --profile dist --bins; BUILD_PROFILE=release reads the quick build; WEBDIET and
# MAKE_ARCHIVES override), about SIZE bytes free in $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"0 3221225472"}
BUILD_PROFILE=${BUILD_PROFILE:-dist}
TARGET=${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE
WEBDIET=${WEBDIET:-$TARGET/webdiet}
MAKE_ARCHIVES=${MAKE_ARCHIVES:-$TARGET/make-archives}
for bin in "$WEBDIET" "$MAKE_ARCHIVES"; do
  [ -x "$bin" ] || { echo "no $bin: cargo build --profile $BUILD_PROFILE --bins first"; exit 1; }
done
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install -y time"; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "load before: $(uptime)"
printf '%-12s %-22s %14s %12s %10s %10s\n' size run archive_bytes peak_rss_kb wall_s cpu_s
for size in $SIZES; do
  archive="$WORK/big-$size.warc.gz"
  "$MAKE_ARCHIVES" big corpus/microscape "$archive" "$size"
  bytes=$(stat -c %s "$archive")
  for run in analyze audit-no-replay; do
    case $run in
      analyze) cmd=("$WEBDIET" analyze "$archive") ;;
      audit-no-replay) cmd=("$WEBDIET" audit "$archive" --no-replay --dry-run --out "$WORK/out-$size" --quiet) ;;
    esac
    /usr/bin/time -v -o "$WORK/time" "${cmd[@]}" > /dev/null 2>&1 || true
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
    cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u + s}' "$WORK/time")
    printf '%-12s %-22s %14s %12s %10s %10s\n' "$size" "$run" "$bytes" "$rss" "$wall" "$cpu"
  done
  rm -f "$archive"
done
echo "load after: $(uptime)"
