#!/bin/sh
# Compares webdiet's markup conversion with HTML Tidy (`tidy --clean yes`, Debian package `tidy`)
# on the same pages: presentational constructs left, HTML bytes, and pixels that differ from the
# original in headless Chromium.
#
# Usage: benches/tidy-compare.sh SITE [PAGES]
#   SITE   a site directory (read-only, as always)
#   PAGES  how many pages to render (spread over the site, `webdiet verify --pages`); default all
#
# Both tools start from the same pages: webdiet runs with images left alone (`--min-saving` too
# high for any GIF to be replaced) and `--css per-page`, so its CSS sits in each page the way
# Tidy's does and the byte counts compare like with like. Constructs are counted by webdiet's own
# counter (`markup.pages[].constructs_before` of a rewrite of each tree), the same for all three
# trees. Needs a release build: `cargo build --release`.
set -eu
site=$1
pages=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
webdiet="$here/target/release/webdiet"
[ -x "$webdiet" ] || { echo "build first: cargo build --release" >&2; exit 2; }
command -v tidy >/dev/null || { echo "tidy is missing (apt-get install tidy)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
no_images="--min-saving 999999999999"

# Tidy, page by page, into a copy of the site.
mkdir -p "$work/tidy" && cp -r "$site/." "$work/tidy/"
find "$work/tidy" -type f \( -iname '*.htm' -o -iname '*.html' \) | while read -r page; do
  tidy --clean yes --show-warnings no --quiet yes --tidy-mark no -o "$page.tidy" "$page" \
    >/dev/null 2>&1 || true
  # Tidy exits 2 on errors and may then write nothing: keep the original page.
  if [ -s "$page.tidy" ]; then mv "$page.tidy" "$page"; else rm -f "$page.tidy"; fi
done

# webdiet, markup only, CSS in each page.
"$webdiet" rewrite "$site" --out "$work/webdiet" $no_images --css per-page >/dev/null

# The same construct counter over all three trees.
for tree in orig:"$site" tidy:"$work/tidy" webdiet:"$work/webdiet/site"; do
  name=${tree%%:*}
  "$webdiet" rewrite "${tree#*:}" --out "$work/count-$name" $no_images >/dev/null
done

# Render checks against the original.
sample=""
[ -n "$pages" ] && sample="--pages $pages"
"$webdiet" verify "$site" "$work/tidy" --out "$work/diff-tidy" --json $sample >"$work/verify-tidy.json" || true
"$webdiet" verify "$site" "$work/webdiet/site" --out "$work/diff-webdiet" --json $sample >"$work/verify-webdiet.json" || true

python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
def pages(name):
    m = json.load(open(f"{work}/count-{name}/report.json"))["markup"]
    return {p["path"]: p for p in m["pages"]}
count = {n: pages(n) for n in ("orig", "tidy", "webdiet")}
px = {}
for n in ("tidy", "webdiet"):
    px[n] = {p["page"]: p["differing_pixels"] for p in json.load(open(f"{work}/verify-{n}.json"))["pages"]}
rendered = sorted(set(px["tidy"]) & set(px["webdiet"]))
head = ("page", "left.orig", "left.tidy", "left.ours", "bytes.orig", "bytes.tidy", "bytes.ours", "px.tidy", "px.ours")
print("%-44s %9s %9s %9s %10s %10s %10s %10s %9s" % head)
tot = [0] * 8
for page in rendered:
    row = [count[n][page]["constructs_before"] for n in ("orig", "tidy", "webdiet")]
    row += [count[n][page]["bytes_before"] for n in ("orig", "tidy", "webdiet")]
    row += [px["tidy"][page], px["webdiet"][page]]
    tot = [a + b for a, b in zip(tot, row)]
    print("%-44s %9d %9d %9d %10d %10d %10d %10d %9d" % (page[:44], *row))
print("%-44s %9d %9d %9d %10d %10d %10d %10d %9d" % ("total (%d pages)" % len(rendered), *tot))
same = lambda n: sum(1 for p in rendered if px[n][p] == 0)
print(f"pixel-identical to the original: tidy {same('tidy')} of {len(rendered)}, webdiet {same('webdiet')} of {len(rendered)}")
EOF
