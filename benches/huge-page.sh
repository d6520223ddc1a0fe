#!/bin/sh
# Peak memory and CPU of `webdiet rewrite` on one huge generated page (issue 24, item 7; issue
# 39): the `table` page repeats a 164-byte unit of old presentational markup (a table with a
# width, a cell with a colour and an alignment, a <font>, a <center>), the same on every row,
# so that every row maps to the same few CSS rules; the `colours` page is that unit with a
# colour of its own on every row (the cell's background and the text), two new rules a row
# (180,000 in 15 MB), which is what the sheet's naming and minifying meet on a real page of
# many colours; the `widths` page gives every table a width of its own instead (one new rule a
# row); the `bold` page is `<b>x</b>` (a node every 4 bytes, nothing to convert). Each page is
# alone in its site; the rewrite runs with a parse limit above the page's size. Prints one
# line per page: size, user+sys CPU, wall time, peak RSS and bytes of peak RSS per byte of
# page, with the date and load average. The target (docs/markup.md, "Limits"): any 15 MB page
# in under 10 CPU-s and 300 MB, on 2 cores; twice the page, twice the CPU.
# Usage: benches/huge-page.sh [MB...]   (default 15 50; NO_BUILD=1 skips the build;
#        WEBDIET=path runs another binary; SHAPES="table colours widths bold" picks the pages,
#        default "table colours bold"; the build is the `dist` profile of published binaries,
#        BUILD_PROFILE=release the quick one)
set -eu
cd "$(dirname "$0")/.."
BUILD_PROFILE=${BUILD_PROFILE:-dist}
[ -n "${NO_BUILD:-}" ] || nice -n 10 cargo build --profile "$BUILD_PROFILE" --quiet
webdiet=${WEBDIET:-${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE/webdiet}
[ $# -gt 0 ] || set -- 15 50
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average$(uptime | sed 's/.*load average://')"
printf '%-7s %9s %9s %8s %9s %6s\n' page bytes cpu_s wall_s peak_MB B/byte
for mb in "$@"; do
    for shape in ${SHAPES:-table colours bold}; do
        site="$tmp/$shape-$mb"
        mkdir -p "$site"
        python3 - "$shape" "$mb" "$site/index.html" <<'EOF'
import sys
shape, mb, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
def unit(n):
    # `colours`: the row's background and its text each a colour of their own (two distinct
    # CSS rules per row); `widths`: each table a width of its own (one distinct rule per table).
    width = str(n + 1) if shape == 'widths' else '100%'
    bg, fg = ('#%06x' % (n * 40503 % 0x1000000), '#%06x' % (n * 9973 % 0x1000000)) \
        if shape == 'colours' else ('#eeeeee', 'red')
    return ('<table width=' + width + '><tr><td bgcolor=' + bg + ' align=center><font face=Arial '
            'size=2 color=' + fg + '>Item ' + str(n) + ' of the old news</font></td></tr>'
            '</table><center><b>x</b></center>')
with open(path, 'w') as f:
    f.write('<html><body>')
    n, size = 0, 0
    while size < mb * 1_000_000:
        part = '<b>x</b>' * 1000 if shape == 'bold' else unit(n)
        f.write(part)
        n, size = n + 1, size + len(part)
    f.write('</body></html>')
EOF
        bytes=$(stat -c %s "$site/index.html")
        out="$tmp/out-$shape-$mb"
        /usr/bin/time -v -o "$tmp/time" "$webdiet" rewrite "$site" --out "$out" --quiet \
            --max-parse-bytes $((bytes + 1)) >/dev/null 2>"$tmp/err" ||
            { cat "$tmp/err" >&2; exit 1; }
        awk -v page="$shape" -v bytes="$bytes" -F': ' '
            /User time/ { user = $2 } /System time/ { sys = $2 }
            /Maximum resident/ { rss = $2 }
            /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = 0
                for (i = 1; i <= n; i++) wall = wall * 60 + t[i] }
            END { printf "%-7s %9d %9.1f %8.1f %9.0f %6.1f\n", page, bytes, user + sys, wall,
                  rss / 1024, rss * 1024 / bytes }' "$tmp/time"
        rm -rf "$out" "$site"
    done
done
echo "# load average after:$(uptime | sed 's/.*load average://')"
