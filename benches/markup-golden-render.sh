#!/bin/sh
# Renders every golden markup case (input vs expected page + sheet) in headless Chromium and
# prints the number of differing pixels for each. Usage: benches/markup-golden-render.sh
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
for case in "$here"/tests/golden/markup/*/; do
  name=$(basename "$case")
  mkdir -p "$work/a/$name" "$work/b/$name"
  cp "$case/input.html" "$work/a/$name/page.html"
  cp "$case/expected.html" "$work/b/$name/page.html"
  cp "$case/expected.css" "$work/b/$name/webdiet.css"
  echo "$name/page.html"
done > "$work/list"
"$here/benches/markup-render-check.sh" "$work/a" "$work/b" $(cat "$work/list")
rm -rf "$work"
