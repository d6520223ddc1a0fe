#!/usr/bin/env bash
# Benchmark (not a test): converts every GIF of Space Jam with `webdiet rewrite` (release
# build) at each --effort level, and with OptiPNG -o2 on the same GIFs, and prints total bytes
# before/after, conversions by outcome and wall time of the whole rewrite. For bytes and CPU
# seconds per MB of the image stage alone, still and animated apart, use
# `cargo bench --bench images`. Record results in docs/images.md.
#
#   benches/images.sh                      # all levels
#   LEVELS="default" benches/images.sh     # just the default
#
# Needs: python3, optipng (Debian: apt-get install -y optipng), ../shared/corpora/spacejam
# (or WEBDIET_SHARED=/path/to/shared).
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${WEBDIET_SHARED:-../shared}
SITE=$SHARED/corpora/spacejam
LEVELS=${LEVELS:-"fast default max"}
[ -d "$SITE" ] || { echo "skipped: $SITE is missing (set WEBDIET_SHARED)"; exit 0; }
command -v optipng >/dev/null || { echo "optipng is missing: apt-get install -y optipng"; exit 1; }

CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build --release --quiet
BIN=$PWD/target/release/webdiet
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
now() { date +%s.%N; }

echo "machine: $(nproc) cores, $(uname -sr); $(optipng -v | head -1)"
echo "site: $SITE ($(find "$SITE" -iname '*.gif' | wc -l) GIFs)"
echo
printf '%-22s %12s %12s %12s %9s %9s  %s\n' tool gif_bytes png_bytes after_bytes images_s wall_s outcomes
for level in $LEVELS; do
  start=$(now)
  "$BIN" -q rewrite "$SITE" --out "$WORK/level-$level" --effort "$level" >/dev/null
  end=$(now)
  python3 - "$WORK/level-$level/report.json" "$start" "$end" "webdiet --effort $level" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["images_total"]
png = sum(i.get("png_bytes") or 0 for i in r["images"])
wall = float(sys.argv[3]) - float(sys.argv[2])
outcomes = " ".join(f"{k}={v}" for k, v in sorted(t["by_outcome"].items()))
print(f'{sys.argv[4]:<22} {t["from_bytes"]:>12} {png:>12} {t["to_bytes"]:>12} {t["wall_millis"]/1000:>9.2f} {wall:>9.2f}  {outcomes}')
PY
done

# OptiPNG on a copy of the same GIFs (it writes name.png next to name.gif).
(cd "$SITE" && find . -iname '*.gif' -print0) > "$WORK/gifs"
mkdir -p "$WORK/optipng"
(cd "$SITE" && xargs -0 cp --parents -t "$WORK/optipng" < "$WORK/gifs")
cp -r "$WORK/optipng" "$WORK/optipng-par"
start=$(now)
(cd "$WORK/optipng" && xargs -0 optipng -o2 -quiet < "$WORK/gifs" 2>/dev/null || true)
end=$(now)
start_par=$(now)
(cd "$WORK/optipng-par" && xargs -0 -P "$(nproc)" -n 8 optipng -o2 -quiet < "$WORK/gifs" 2>/dev/null || true)
end_par=$(now)
python3 - "$WORK/optipng" "$start" "$end" "$end_par" "$start_par" "$WORK/level-${LEVELS%% *}/report.json" "$WORK" "$LEVELS" <<'PY'
import json, os, sys
root = sys.argv[1]
gif_total = png_total = after = 0
frames = {}
levels = sys.argv[8].split()
reports = {l: json.load(open(os.path.join(sys.argv[7], f"level-{l}", "report.json"))) for l in levels}
any_report = next(iter(reports.values()))
frames = {i["path"]: i["frames"] for i in any_report["images"]}
opti = {}
for dirpath, _, files in os.walk(root):
    for f in files:
        if f.lower().endswith(".gif"):
            g = os.path.join(dirpath, f)
            p = g[:-4] + ".png"
            rel = os.path.relpath(g, root)
            gb = os.path.getsize(g)
            pb = os.path.getsize(p) if os.path.exists(p) else None
            opti[rel] = (gb, pb)
made = [v for v in opti.values() if v[1] is not None]
gif_total = sum(v[0] for v in opti.values())
png_total = sum(v[1] for v in made)
after = sum(min(v) if v[1] is not None else v[0] for v in opti.values())
wall = float(sys.argv[3]) - float(sys.argv[2])
wall_par = float(sys.argv[4]) - float(sys.argv[5])
print(f'{"optipng -o2":<22} {gif_total:>12} {png_total:>12} {after:>12} {"":>9} {wall:>9.2f}  pngs={len(made)} (one process)')
print(f'{"optipng -o2 -P" + str(os.cpu_count()):<22} {"":>12} {"":>12} {"":>12} {"":>9} {wall_par:>9.2f}  (xargs -P)')
print()
print("Like for like (GIFs both tools turned into a PNG; OptiPNG keeps only the first frame of")
print("an animation, so animated GIFs are compared separately):")
for level, r in reports.items():
    ours = {i["path"]: i.get("png_bytes") for i in r["images"]}
    for label, want_anim in (("static", False), ("animated", True)):
        keys = [k for k, (g, p) in opti.items() if p is not None and ours.get(k) is not None
                and (frames.get(k, 1) > 1) == want_anim]
        o = sum(opti[k][1] for k in keys)
        w = sum(ours[k] for k in keys)
        worse = sum(1 for k in keys if ours[k] > opti[k][1])
        print(f"  level {level:<4} {label:<8} {len(keys):>4} images: webdiet {w:>9} B, optipng {o:>9} B "
              f"({100*(w-o)/o if o else 0:+.1f}%), webdiet larger on {worse}")
PY
