#!/usr/bin/env bash
# Benchmark of the tests themselves (not a test): builds the suite once, then runs the README's
# test command N times in a row (default 3), printing for each run its exit code, wall time and
# the load average before and after. A flaky test shows as a run that fails; docs/testing.md
# records the result. Run it on an idle machine (and once beside another build) with CI=true,
# so that tests needing ../shared or the installed tools fail instead of skipping.
#
#   CI=true benches/suite-repeat.sh        # three runs; RUNS=5 for five
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
LOGS=$(mktemp -d)
cargo test --locked --no-run >"$LOGS/build.log" 2>&1 || { echo "build failed: $LOGS/build.log"; exit 1; }
failed=0
for i in $(seq 1 "$RUNS"); do
  start=$(date +%s)
  before=$(cut -d' ' -f1 /proc/loadavg)
  cargo test --locked >"$LOGS/run$i.log" 2>&1
  rc=$?
  after=$(cut -d' ' -f1 /proc/loadavg)
  passed=$(awk '/^test result/ {s += $4} END {print s + 0}' "$LOGS/run$i.log")
  echo "run $i: exit $rc, $passed passed, $(($(date +%s) - start)) s, load $before -> $after ($(date -u +%FT%TZ))"
  [ "$rc" = 0 ] || { failed=1; grep -h -A3 'FAILED\|panicked' "$LOGS/run$i.log" | head -20; }
done
echo "logs in $LOGS"
exit $failed
