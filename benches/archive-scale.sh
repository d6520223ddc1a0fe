#!/usr/bin/env bash
# Benchmark (not a test): what many small records cost. make-archives writes N tiny pages, a
# gzipped record each, each linking to the next (`make-archives many`); `webdiet analyze` (the
# index, the captures materialised, the crawl and inventory) and `webdiet rewrite` (the same,
# then the rewritten tree written and synced) run under GNU time. Prints N, the archive's bytes,
# peak RSS, wall and CPU time (user + system), and CPU per 1,000 records, which stays flat when
# the work is linear. Record results in docs/archives.md with the load (printed before and
# after).
#
#   benches/archive-scale.sh                 # COUNTS="25000 50000 100000"
#   COUNTS="10000 20000" benches/archive-scale.sh
#
# Needs: GNU time (/usr/bin/time), a build in the `dist` profile of published binaries
# (cargo build --profile dist --bins; BUILD_PROFILE=release reads the quick build; WEBDIET and
# MAKE_ARCHIVES override).
set -euo pipefail
cd "$(dirname "$0")/.."
COUNTS=${COUNTS:-"25000 50000 100000"}
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
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores; load before: $(uptime | sed 's/.*load average: //')"
printf '%-8s %-8s %12s %12s %8s %8s %14s\n' records run archive_bytes peak_rss_kb wall_s cpu_s cpu_ms_per_1k
for n in $COUNTS; do
  archive="$WORK/many-$n.warc.gz"
  "$MAKE_ARCHIVES" many "$archive" "$n"
  bytes=$(stat -c %s "$archive")
  for run in analyze rewrite; do
    case $run in
      analyze) args=(analyze --quiet "$archive") ;;
      rewrite) args=(rewrite --quiet --out "$WORK/out-$n" "$archive") ;;
    esac
    /usr/bin/time -f '%M %e %U %S' -o "$WORK/time" "$WEBDIET" "${args[@]}" >/dev/null
    read -r rss wall user sys <"$WORK/time"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    per=$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.1f", 1e6 * c / n }')
    printf '%-8s %-8s %12s %12s %8s %8s %14s\n' "$n" "$run" "$bytes" "$rss" "$wall" "$cpu" "$per"
    rm -rf "$WORK/out-$n"
  done
  rm -f "$archive"
done
echo "# load after: $(uptime | sed 's/.*load average: //')"
