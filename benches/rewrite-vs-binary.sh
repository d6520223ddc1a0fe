#!/usr/bin/env bash
# Benchmark (not a test): `webdiet rewrite` of one corpus by two binaries on the same machine,
# alternately, so that a throughput figure measured on another machine (issue 28's 3.8 MB/s
# "per 2-core machine", measured on Space Jam before `batch` existed) can be compared with
# today's code on this one. Prints, per run: binary, wall s, CPU s (user + system), MB/s of
# wall time; then the median MB/s of each binary. The machine should be otherwise idle
# (`uptime` is printed before and after).
#
#   git worktree add /tmp/old d0dc35b && (cd /tmp/old && cargo build --release --locked)
#   OLD=/tmp/old/target/release/webdiet benches/rewrite-vs-binary.sh [corpus] [runs]
#   (a commit from before the `dist` profile has only `release`: fat LTO from 71d9f16 on)
#   NEW_BATCH=1 OLD=... benches/rewrite-vs-binary.sh    # the new binary runs `batch --no-replay`
#                                                       # over a list of the one corpus instead
#   OLD_BATCH=1 NEW_BATCH=1 OLD=... benches/…           # both do (two builds that both have batch)
#
# Needs: GNU time (/usr/bin/time), a build of this checkout in the `dist` profile of published
# binaries (cargo build --profile dist; BUILD_PROFILE=release reads the quick one; NEW=path overrides),
# ../shared/corpora (or WEBDIET_SHARED). The corpus defaults to spacejam, runs to 5.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${WEBDIET_SHARED:-../shared}
corpus=${1:-spacejam}
runs=${2:-5}
NEW=${NEW:-${CARGO_TARGET_DIR:-target}/${BUILD_PROFILE:-dist}/webdiet}
: "${OLD:?set OLD to the other binary}"
[ -d "$SHARED/corpora/$corpus" ] || { echo "skipped: $SHARED/corpora/$corpus is missing"; exit 0; }
site=$(cd "$SHARED/corpora/$corpus" && pwd)
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing: apt-get install -y time"; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
bytes=$(du -sb --apparent-size "$site" | cut -f1)
cpu=$(awk -F': ' '/^model name/ {m = $2} END {print m}' /proc/cpuinfo)
echo "machine: $(nproc) cores ($cpu); $corpus, $bytes bytes; $runs runs each, alternating"
old_cmd=rewrite
[ -z "${OLD_BATCH:-}" ] || old_cmd="batch --no-replay"
new_cmd=rewrite
[ -z "${NEW_BATCH:-}" ] || new_cmd="batch --no-replay"
echo "old: $OLD $old_cmd   new: $NEW $new_cmd"
echo "load before: $(uptime)"
printf '%-4s %7s %7s %7s\n' bin wall_s cpu_s 'MB/s'
for i in $(seq 1 "$runs"); do
  for which in old new; do
    if [ "$which" = old ]; then bin=$OLD; else bin=$NEW; fi
    rm -rf "$WORK/out"
    if { [ "$which" = new ] && [ -n "${NEW_BATCH:-}" ]; } ||
      { [ "$which" = old ] && [ -n "${OLD_BATCH:-}" ]; }; then
      echo "$site" > "$WORK/list"
      cmd=(batch "$WORK/list" --no-replay)
    else
      cmd=(rewrite "$site")
    fi
    /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$bin" --quiet "${cmd[@]}" --out "$WORK/out" >/dev/null
    read -r wall user sys < "$WORK/time"
    mbs=$(awk -v b="$bytes" -v w="$wall" 'BEGIN {printf "%.2f", b / 1e6 / w}')
    echo "$mbs" >> "$WORK/$which"
    printf '%-4s %7.2f %7.2f %7s\n' "$which" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" "$mbs"
  done
done
for which in old new; do
  echo "median MB/s $which: $(sort -n "$WORK/$which" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')"
done
echo "load after: $(uptime)"
