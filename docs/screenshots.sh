#!/usr/bin/env bash
# Makes the report pictures in the README and docs/reports.md from a real run: the default
# audit of corpus/microscape, its HTML report shot in headless Chromium at a desktop's width
# (1280 CSS pixels) and a phone's (390), the top of the page (the verdict, the saving, the
# opportunities, the first charts). Also prints the terminal summary the README shows.
# Needs Chromium (apt-get install chromium fonts-liberation fonts-dejavu-core).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin webdiet --example screenshot
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
target/release/webdiet audit corpus/microscape --out "$tmp/out" | tee "$tmp/summary.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
target/release/examples/screenshot "$tmp/out/report.html" 1280 2200 docs/report-1280.png
target/release/examples/screenshot "$tmp/out/report.html" 390 2600 docs/report-390.png
echo "wrote docs/report-1280.png and docs/report-390.png" >&2
