#!/usr/bin/env bash
# Benchmark (not a test): `webdiet batch` over collections of 1 to 20 units made from the
# corpora (copies of ../shared/corpora/spacejam and libwww-docs, alternately, made in a
# temporary directory at bench time and removed after), rewrite-only (--no-replay) and with
# the loopback replay (MODES=sample: also every unit over the emulated Cable link, once).
# For each run: the units' bytes, wall time, CPU time (user + system of
# the process and its children), MB/s of wall time and MB per CPU-second (MB/s per core),
# and the peak RSS (/usr/bin/time -v: the largest of the process and its children). One
# process per run, so memory from 1 to 20 units shows whether it stays flat. Record results
# in docs/scale.md with `uptime` (printed before and after): the machine may be shared.
#
#   benches/batch.sh                          # SIZES="1 5 20", MODES="rewrite replay"
#   SIZES="1 20" MODES=rewrite benches/batch.sh
#   FLAGS="--effort fast" SIZES="1 5" MODES=rewrite benches/batch.sh   # more batch options
#
# Needs: GNU time (/usr/bin/time, Debian package `time`), a build in the `dist` profile of
# published binaries (cargo build --profile dist; BUILD_PROFILE=release reads the quick build,
# WEBDIET=path another binary), ../shared/corpora (or WEBDIET_SHARED).
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${WEBDIET_SHARED:-../shared}
SIZES=${SIZES:-"1 5 20"}
MODES=${MODES:-"rewrite replay"}
BUILD_PROFILE=${BUILD_PROFILE:-dist}
WEBDIET=${WEBDIET:-${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE/webdiet}
for corpus in spacejam libwww-docs; do
  [ -d "$SHARED/corpora/$corpus" ] || { echo "skipped: $SHARED/corpora/$corpus is missing"; exit 0; }
done
[ -x "$WEBDIET" ] || { echo "no $WEBDIET: cargo build --profile $BUILD_PROFILE first (or set WEBDIET)"; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install -y time"; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
max=0
for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
for i in $(seq 0 $((max - 1))); do
  if [ $((i % 2)) = 0 ]; then corpus=spacejam; else corpus=libwww-docs; fi
  cp -r "$SHARED/corpora/$corpus" "$WORK/unit-$i-$corpus"
done

# The CPU as the VM names it: MB/s figures of two machines compare only with the same binary
# run on both (docs/scale.md, "Another machine").
cpu=$(awk -F': ' '/^model name/ {m = $2} /^cpu MHz/ {f = $2} END {printf "%s, %.0f MHz", m, f}' /proc/cpuinfo)
echo "machine: $(nproc) cores ($cpu), $(uname -sr); $("$WEBDIET" --version)${FLAGS:+; batch options: $FLAGS}"
echo "load before: $(uptime)"
printf '%-8s %6s %10s %9s %9s %9s %11s %10s\n' mode units MB wall_s cpu_s 'MB/s' 'MB/cpu_s' 'peak_RSS'
for mode in $MODES; do
  case $mode in
    rewrite) flags=(--no-replay) ;;
    replay) flags=() ;;
    # Every unit in the sample: the loopback replay and one run over the Cable profile.
    sample) flags=(--measure-sample 1000000 --seed 1 --sample-link Cable) ;;
    *) echo "unknown mode $mode (rewrite, replay, sample)"; exit 2 ;;
  esac
  for n in $SIZES; do
    list="$WORK/list-$n"
    (cd "$WORK" && ls -d unit-* | sort -t- -k2 -n | head -n "$n") > "$list"
    bytes=$(cd "$WORK" && du -sb --apparent-size $(cat "$list") | awk '{s += $1} END {print s}')
    out="$WORK/out-$mode-$n"
    # shellcheck disable=SC2086 # FLAGS is a list of options
    /usr/bin/time -v -o "$WORK/time" "$WEBDIET" --quiet batch "$list" --out "$out" "${flags[@]}" ${FLAGS:-}
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$WORK/time")
    cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$WORK/time")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time")
    awk -v m="$mode" -v n="$n" -v b="$bytes" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN {
      mb = b / 1e6
      printf "%-8s %6d %10.1f %9.1f %9.1f %9.2f %11.2f %7.0f MB\n", m, n, mb, w, c, mb / w, mb / c, r / 1024
    }'
    rm -rf "$out"
  done
done
echo "load after: $(uptime)"
