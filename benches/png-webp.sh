#!/usr/bin/env bash
# Benchmark (not a test): what `--image-format webp` does to the PNGs of real documentation
# sites made by today's generators (Sphinx's and Doxygen's own manuals, from Debian's
# packages), against the default `png`: PNG bytes served, how many became WebPs, why the
# others stayed PNGs, CPU, and `webdiet verify` of every page of both rewrites (pixel-
# identical pages in Chromium). Prints what docs/images.md, "PNG to WebP", records.
#
#   benches/png-webp.sh [WORK_DIR]      # default: target/modern-sites, shared with modern-sites.sh
#   VERIFY=0 benches/png-webp.sh        # skip the render check
#
# Needs: apt-get download (Debian's package lists), dpkg-deb, python3; Chromium for VERIFY=1.
# Builds the `dist` profile of published binaries (BUILD_PROFILE=release: the quick one).
# The packages are fetched into WORK_DIR and unpacked there; nothing of them is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-target/modern-sites}
VERIFY=${VERIFY:-1}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

BUILD_PROFILE=${BUILD_PROFILE:-dist}
cargo build --profile "$BUILD_PROFILE" --locked --quiet
WEBDIET=$(cd "${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE" && pwd)/webdiet

# shellcheck source=benches/doc-sites.sh
source benches/doc-sites.sh
fetch_doc_sites "$WORK"

echo "machine: $(nproc) cores, $(uname -sr); $(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "packages: $(cd "$WORK" && ls *.deb | tr '\n' ' ')"
for name in sphinx-doc doxygen; do
  site=$WORK/root/usr/share/doc/$name/html
  for format in png webp; do
    out=$WORK/out-$name-$format
    rm -rf "$out"
    /usr/bin/time -f "%U %S" -o "$WORK/time-$name-$format" \
      "$WEBDIET" rewrite "$site" --out "$out" --image-format "$format" --quiet >/dev/null
  done
  if [ "$VERIFY" = 1 ]; then
    for format in png webp; do
      "$WEBDIET" verify "$site" "$WORK/out-$name-$format/site" --json --force \
        --out "$WORK/verify-$name-$format" >"$WORK/verify-$name-$format.json" 2>/dev/null || true
    done
  fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$WORK" <<'EOF'
import collections, json, os, sys
work = sys.argv[1]
print("| site | `--image-format` | PNGs | PNG bytes before | served after | of them WebP | whole rewrite, CPU s | pages verified (identical) |")
print("|---|---|---:|---:|---:|---:|---:|---|")
why = {}
for name in ["sphinx-doc", "doxygen"]:
    for fmt in ["png", "webp"]:
        r = json.load(open(f"{work}/out-{name}-{fmt}/report.json"))
        rows = [x for x in r["lossless"]["rows"] if x["kind"] == "png"]
        t = r["lossless"]["totals"]["png"]
        user, system = open(f"{work}/time-{name}-{fmt}").read().split()[:2]
        webps = [x for x in rows if x.get("to_path")]
        verified = ""
        v = f"{work}/verify-{name}-{fmt}.json"
        if os.path.exists(v) and os.path.getsize(v):
            pages = json.load(open(v))["pages"]
            same = sum(1 for p in pages if p["differing_pixels"] == 0)
            verified = f"{len(pages)} ({same})"
        print(f"| {name} | {fmt} | {t['files']} | {t['from_bytes']:,} | {t['to_bytes']:,} | "
              f"{len(webps)} ({sum(1 for x in webps if x.get('original_kept'))} also kept as PNG) | "
              f"{float(user) + float(system):.1f} | {verified} |")
        if fmt == "webp":
            why[name] = collections.Counter(
                x["reason"].split("no WebP: ")[1].split("(")[0] + "(" +
                x["reason"].split("no WebP: ")[1].split("(")[1][:40] + "…"
                for x in rows if "no WebP: " in x["reason"])
for name, counts in why.items():
    print(f"\n{name}, PNGs offered a WebP that stayed PNG:")
    for reason, n in counts.most_common():
        print(f"  {n:4} {reason}")
EOF
