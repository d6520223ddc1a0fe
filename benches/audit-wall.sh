#!/usr/bin/env bash
# Wall time, CPU time and peak memory of the default audit (loopback replayed, Cable, DSL, 3G
# and 4G simulated) of corpus/microscape and the Space Jam snapshot, dist build, with the
# load average before and after (issue 22's target: a fifth of the 61 s and 120 s the audit
# took when it measured Cable over the emulated link). Takes the timing tests' lock so it
# never runs beside a measurement.
#
#   benches/audit-wall.sh [RUNS]    (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
SHARED=${WEBDIET_SHARED:-../shared}
LOCK="${TMPDIR:-/tmp}/webdiet-timing-tests.lock"
# The profile of published binaries, `dist` (Cargo.toml: fat LTO, one codegen unit), unless
# BUILD_PROFILE says another (`release`: the quick build, 4 % more CPU on a Space Jam unit).
BUILD_PROFILE=${BUILD_PROFILE:-dist}
cargo build --profile "$BUILD_PROFILE" --locked 2>&1 | tail -1 >&2
BIN=$(cd "${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE" && pwd)/webdiet
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "build: $(git rev-parse --short HEAD); $(uname -srm), $(nproc) cores; $(date -u +%Y-%m-%dT%H:%M:%SZ)"
for entry in "microscape|corpus/microscape" "spacejam|$SHARED/corpora/spacejam"; do
    IFS='|' read -r label dir <<< "$entry"
    for i in $(seq "$RUNS"); do
        flock "$LOCK" sh -c '
            before=$(cut -d" " -f1 /proc/loadavg)
            /usr/bin/time -f "%e %U %S %M" -o "$3/time" "$1" audit "$2" --out "$3/out" --force > /dev/null 2>&1
            after=$(cut -d" " -f1 /proc/loadavg)
            read -r wall user sys rss < "$3/time"
            printf "%s run %s: wall %s s, CPU %.1f s, peak %d MB, load %s → %s\n" \
                "$4" "$5" "$wall" "$(awk "BEGIN{print $user + $sys}")" "$((rss / 1024))" "$before" "$after"
        ' _ "$BIN" "$dir" "$OUT" "$label" "$i"
    done
done
