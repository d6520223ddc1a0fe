#!/bin/sh
# Renders each page of an original site and of its converted copy in headless Chromium and
# counts differing pixels. Usage: markup-render-check.sh ORIG_DIR CONVERTED_DIR [PAGE...]
# (pages relative to the site root; default: every .html/.htm). Prints: page diff total.
set -eu
orig=$1; conv=$2; shift 2
shots=$(mktemp -d)
if [ $# -eq 0 ]; then set -- $(cd "$orig" && find . -name '*.htm*' | sed 's|^\./||' | sort); fi
shot() { # file png
  prof=$(mktemp -d)
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --hide-scrollbars --no-first-run --user-data-dir="$prof" --window-size=1024,3000 \
    --screenshot="$2" "file://$1" >/dev/null 2>&1 || true
  rm -rf "$prof"
}
for page in "$@"; do
  shot "$(realpath "$orig/$page")" "$shots/a.png"
  shot "$(realpath "$conv/$page")" "$shots/b.png"
  if [ -s "$shots/a.png" ] && [ -s "$shots/b.png" ]; then
    if cmp -s "$shots/a.png" "$shots/b.png"; then echo "$page 0 identical"
    else echo "$page $(python3 "$(dirname "$0")/pixel-diff.py" "$shots/a.png" "$shots/b.png")"; fi
  else echo "$page screenshot-failed"; fi
  rm -f "$shots/a.png" "$shots/b.png"
done
rm -rf "$shots"
