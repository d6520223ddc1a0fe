#!/usr/bin/env bash
# The simulator's validation (docs/simulation.md, issue 22): every default mode, both tests,
# original and rewritten site, of microscape (the page the model was tuned on) and three real
# pages it is judged on — the Space Jam index and two pages of the W3C libwww docs — replayed
# over the emulated link on every lossless profile and on the lossy SPDY profiles, each row
# with its simulated time beside the measured one; then Chromium over Cable and DSL (h2 and
# persistent). Writes one JSON per page, site and link into OUT (default target/simulation),
# skipping what is already there, so an interrupted run resumes; then
# benches/simulation-tables.py turns them into the tables of docs/simulation.md.
#
#   benches/simulation.sh [--runs N] [--out DIR] [--quick] [--no-chromium] [--no-docs]
#                         [--pages LABEL,…] [--sites original,rewritten] [--links L,…]
#                         [--lossy L,…] [--browser-links L,…]
#
# A link list may hold specs with commas of their own ("Cable,spdy-dsl,loss=0" is two links);
# an unknown page label or site is refused with exit 2.
#
# The full validation replays 4 pages × 2 sites × 10 links: about 25 minutes per page and site
# at 3 runs on this 2-core machine (wan-1997 and 3G are the slow links), so the options choose
# a subset; the tables say what ran.
#
# --quick: one real page and the fast links only (a smoke run). Every replay takes the shared
# timing lock of the tests (tests/common, timing_turn) so it never runs beside a timing test,
# and `uptime` is recorded before and after each, so the tables can say at what load they
# were measured. Run it on an idle machine for the figures that matter.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=5
OUT=target/simulation
QUICK=0
CHROMIUM=1
DOCS=1
ONLY_PAGES=""
SITES="original,rewritten"
ONLY_LINKS=""
ONLY_LOSSY=""
ONLY_BROWSER=""
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --quick) QUICK=1; shift ;;
        --no-chromium) CHROMIUM=0; shift ;;
        --no-docs) DOCS=0; shift ;;
        --pages) ONLY_PAGES=$2; shift 2 ;;
        --sites) SITES=$2; shift 2 ;;
        --links) ONLY_LINKS=$2; shift 2 ;;
        --lossy) ONLY_LOSSY=$2; shift 2 ;;
        --browser-links) ONLY_BROWSER=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done

SHARED=${WEBDIET_SHARED:-../shared}
if [ ! -d "$SHARED/corpora/spacejam" ]; then
    echo "simulation bench: $SHARED/corpora not found (set WEBDIET_SHARED)" >&2
    exit 1
fi
LOCK="${TMPDIR:-/tmp}/webdiet-timing-tests.lock"


# label | site directory | page
PAGES=(
    "microscape|corpus/microscape|index.html"
    "spacejam|$SHARED/corpora/spacejam|index.html"
    "libwww-screenshots|$SHARED/corpora/libwww-docs|WinCom/ScreenShots.html"
    "libwww-windll|$SHARED/corpora/libwww-docs|Library/User/Platform/WinDLL.html"
)
LOSSLESS=(lan-1997 wan-1997 Cable DSL 3G 4G "spdy-dsl,loss=0" "spdy-cable,loss=0")
LOSSY=(spdy-dsl spdy-cable)
BROWSER_LINKS=(Cable DSL)
if [ "$QUICK" = 1 ]; then
    PAGES=("${PAGES[0]}" "${PAGES[3]}")
    LOSSLESS=(lan-1997 Cable)
    LOSSY=(spdy-cable)
    BROWSER_LINKS=(Cable)
fi
if [ -n "$ONLY_PAGES" ]; then
    chosen=()
    IFS=',' read -r -a wanted <<< "$ONLY_PAGES"
    for label in "${wanted[@]}"; do
        found=""
        for entry in "${PAGES[@]}"; do
            [ "${entry%%|*}" = "$label" ] && found=$entry
        done
        if [ -z "$found" ]; then
            echo "unknown page label '$label'; known: $(printf '%s ' "${PAGES[@]%%|*}")" >&2
            exit 2
        fi
        chosen+=("$found")
    done
    PAGES=("${chosen[@]}")
fi

# A list of link specs, comma-separated, where a spec may hold commas of its own: a piece
# with `=` (`loss=0`, `rtt=40ms`) belongs to the spec before it, as does a trace's second
# file, so "Cable,spdy-dsl,loss=0,trace:UP,DOWN,rtt=40ms" is three specs.
split_links() {
    local -n into=$1
    local piece
    into=()
    IFS=',' read -r -a pieces <<< "$2"
    for piece in "${pieces[@]}"; do
        if [ ${#into[@]} -gt 0 ] && { [[ "$piece" == *=* ]] \
            || { [[ "${into[-1]}" == trace:* ]] && [[ "${into[-1]}" != *,* ]]; }; }; then
            into[-1]="${into[-1]},$piece"
        else
            into+=("$piece")
        fi
    done
}
[ -n "$ONLY_LINKS" ] && split_links LOSSLESS "$ONLY_LINKS"
[ -n "$ONLY_LOSSY" ] && split_links LOSSY "$ONLY_LOSSY"
[ -n "$ONLY_BROWSER" ] && split_links BROWSER_LINKS "$ONLY_BROWSER"
IFS=',' read -r -a SITE_LIST <<< "$SITES"
for site in "${SITE_LIST[@]}"; do
    case "$site" in
        original|rewritten) ;;
        *) echo "unknown site '$site'; known: original rewritten" >&2; exit 2 ;;
    esac
done

# The `dist` profile of published binaries: the measured times are a build's own too
# (BUILD_PROFILE=release: the quick build).
BUILD_PROFILE=${BUILD_PROFILE:-dist}
cargo build --profile "$BUILD_PROFILE" --locked 2>&1 | tail -1
BIN=$(cd "${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE" && pwd)/webdiet

mkdir -p "$OUT"
# Appended: a validation resumed or run in parts lists every invocation.
{
    echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm), $(nproc) cores"
    echo "uptime: $(uptime)"
    echo "runs: $RUNS"
    echo "pages: ${PAGES[*]%%|*}; sites: ${SITE_LIST[*]}; links: ${LOSSLESS[*]}; lossy: ${LOSSY[*]}; chromium: $([ "$CHROMIUM" = 1 ] && echo "${BROWSER_LINKS[*]}" || echo none)"
    if [ "$QUICK" = 1 ]; then
        echo "quick: a smoke run (${#PAGES[@]} pages; ${LOSSLESS[*]} ${LOSSY[*]}), not the validation"
    fi
} >> "$OUT/run-info.txt"

# One replay into OUT/NAME.json (skipped when present), under the timing lock, with the load.
replay() {
    local name=$1
    shift
    local file="$OUT/$name.json"
    if [ -s "$file" ]; then
        return
    fi
    echo "$(date +%T) $name" >&2
    local before after
    before=$(cut -d' ' -f1 /proc/loadavg)
    flock "$LOCK" "$BIN" replay "$@" --json > "$file.tmp" 2> "$OUT/$name.err" || {
        echo "  failed (see $OUT/$name.err)" >&2
        rm -f "$file.tmp"
        return
    }
    after=$(cut -d' ' -f1 /proc/loadavg)
    mv "$file.tmp" "$file"
    echo "$name $before $after" >> "$OUT/load.txt"
}

for entry in "${PAGES[@]}"; do
    IFS='|' read -r label dir page <<< "$entry"
    rewritten="$OUT/$label-rewrite"
    if [[ ",$SITES," == *",rewritten,"* ]] && [ ! -d "$rewritten/site" ]; then
        "$BIN" rewrite "$dir" --out "$rewritten" --force > /dev/null
    fi
    for site in "${SITE_LIST[@]}"; do
        src=$dir
        [ "$site" = rewritten ] && src=$rewritten/site
        for link in "${LOSSLESS[@]}" "${LOSSY[@]}"; do
            replay "$label.$site.$link" "$src" --page "$page" --link "$link" --runs "$RUNS"
        done
        if [ "$CHROMIUM" = 1 ]; then
            for link in "${BROWSER_LINKS[@]}"; do
                replay "$label.$site.$link.chromium" "$src" --page "$page" --link "$link" \
                    --runs "$RUNS" --client chromium --modes persistent,h2
            done
        fi
    done
done

echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ), uptime: $(uptime)" >> "$OUT/run-info.txt"
if [ "$DOCS" = 1 ]; then
    python3 benches/simulation-tables.py "$OUT"
fi
