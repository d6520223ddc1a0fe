#!/bin/sh
# How long a newcomer waits (issue 44, "The newcomer's build"): a cold `cargo build` of each
# profile in a target directory of its own, then the same command again, which must compile
# nothing. Prints wall time, user+sys CPU, and the second command's time, with the date and
# the load average before and after (docs/scale.md, "The build").
# Usage: benches/cold-build.sh [PROFILE...]   (default: release dist)
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- release dist
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(git rev-parse --short=12 HEAD), load average$(uptime | sed 's/.*load average://')"
printf '%-8s %8s %8s %10s\n' profile wall_s cpu_s again_s
for profile in "$@"; do
    target="$tmp/$profile"
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" \
        env CARGO_TARGET_DIR="$target" cargo build --profile "$profile" --locked --quiet
    start=$(date +%s.%N)
    env CARGO_TARGET_DIR="$target" cargo build --profile "$profile" --locked --quiet
    again=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    awk -v p="$profile" -v again="$again" \
        '{ printf "%-8s %8.0f %8.0f %10.2f\n", p, $1, $2 + $3, again }' "$tmp/time"
    rm -rf "$target"
done
echo "# load average after:$(uptime | sed 's/.*load average://')"
