#!/bin/sh
# Compares webdiet's markup conversion with HTML Tidy (`tidy --clean yes`, Debian package
# `tidy`) on the same pages: presentational constructs left, HTML bytes, and pixels that differ
# from the original in headless Chromium.
# Usage: benches/tidy-compare.sh ORIG_DIR WEBDIET_DIR [PAGE...]
#   ORIG_DIR/WEBDIET_DIR as written by tests/markup_site.rs (WEBDIET_MARKUP_ORIG_OUT / _OUT).
# The construct count is a plain grep over the markup, the same for all three versions.
set -eu
orig=$1; ours=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
tidied=$(mktemp -d)
cp -r "$orig/." "$tidied/"
if [ $# -eq 0 ]; then set -- $(cd "$orig" && find . -name '*.htm*' | sed 's|^\./||' | sort); fi
count() { # file → number of presentational tags/attributes left
  tr 'A-Z' 'a-z' < "$1" | grep -o -E '<(font|basefont|center|u|s|strike|big|tt|nobr)[ >]| (bgcolor|background|text|link|vlink|alink|align|valign|border|hspace|vspace|nowrap|clear|cellpadding|cellspacing|noshade|bordercolor|marginwidth|marginheight|leftmargin|topmargin)=' | wc -l
}
printf '%-40s %8s %8s %8s %8s %8s %8s %10s %10s\n' page left.orig left.tidy left.ours bytes.orig bytes.tidy bytes.ours px.tidy px.ours
for page in "$@"; do
  tidy --clean yes --show-warnings no --quiet yes --tidy-mark no -o "$tidied/$page" "$orig/$page" >/dev/null 2>&1 || true
  px_tidy=$("$here/markup-render-check.sh" "$orig" "$tidied" "$page" | awk '{print $2}')
  px_ours=$("$here/markup-render-check.sh" "$orig" "$ours" "$page" | awk '{print $2}')
  # Tidy puts its generated style in the page itself; webdiet's shared sheet is counted apart.
  printf '%-40s %8s %8s %8s %8s %8s %8s %10s %10s\n' "$page" "$(count "$orig/$page")" \
    "$(count "$tidied/$page")" "$(count "$ours/$page")" "$(wc -c < "$orig/$page")" \
    "$(wc -c < "$tidied/$page")" "$(wc -c < "$ours/$page")" "$px_tidy" "$px_ours"
done
[ -f "$ours/webdiet.css" ] && echo "webdiet.css: $(wc -c < "$ours/webdiet.css") bytes (shared by all pages)"
rm -rf "$tidied"
