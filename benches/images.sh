#!/usr/bin/env bash
# Benchmark (not a test): converts every GIF of Space Jam with `webdiet rewrite` (the `dist`
# build of published binaries; BUILD_PROFILE=release for the quick one) at each --effort level, and with OptiPNG -o2 on the same GIFs, and prints total bytes
# before/after, conversions by outcome and wall time of the whole rewrite. For bytes and CPU
# seconds per MB of the image stage alone, still and animated apart, use
# `cargo bench --bench images`. Record results in docs/images.md.
#
#   benches/images.sh                      # all levels
#   LEVELS="default" benches/images.sh     # just the default
#   benches/images.sh webp                 # libwebp's own tools instead (see below)
#
# Needs: python3, optipng (Debian: apt-get install -y optipng), ../shared/corpora/spacejam
# (or WEBDIET_SHARED=/path/to/shared).
#
# `benches/images.sh webp` runs libwebp's command-line tools (Debian package `webp`:
# apt-get install -y webp) on every GIF of Space Jam, one process per file: `gif2webp -q 100
# -m 6` (lossless, the issue's reference), `gif2webp -q 100 -m 6 -min_size`, and, for the
# still GIFs, `cwebp -lossless -z 9` (cwebp does not read GIF: it gets the same pixels as an
# RGBA PNG written by Pillow, python3-pil, beforehand and not timed). It prints, still and
# animated apart, the bytes after keep-smaller (the WebP where smaller than the GIF) and the
# tools' CPU (user + system of the child processes) per MB of GIF. Compare with
# `FORMATS=webp cargo bench --bench images`. `ONLY=cwebp` (or `ONLY=gif2webp`) runs one tool.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${WEBDIET_SHARED:-../shared}
SITE=$SHARED/corpora/spacejam
LEVELS=${LEVELS:-"fast default max"}
[ -d "$SITE" ] || { echo "skipped: $SITE is missing (set WEBDIET_SHARED)"; exit 0; }

if [ "${1:-}" = webp ]; then
  for tool in gif2webp cwebp; do
    command -v $tool >/dev/null || { echo "$tool is missing: apt-get install -y webp"; exit 1; }
  done
  python3 -c 'import PIL' 2>/dev/null || { echo "Pillow is missing: apt-get install -y python3-pil"; exit 1; }
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  echo "machine: $(nproc) cores, $(uname -sr); libwebp tools $(cwebp -version | head -1)"
  python3 - "$SITE" "$WORK" <<'PY'
import os, subprocess, sys
site, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, "benches")
from benchlib import children_cpu as cpu, gif_frames as frames

gifs = sorted(os.path.join(d, f) for d, _, fs in os.walk(site) for f in fs if f.lower().endswith(".gif"))
kinds = {g: ("animated" if frames(open(g, "rb").read()) > 1 else "still") for g in gifs}
def quick(g):
    """The GIF's pixels as an RGBA PNG, for cwebp (which does not read GIF)."""
    from PIL import Image
    src = os.path.join(work, "in.png")
    Image.open(g).convert("RGBA").save(src, compress_level=1)
    return src

gif2webp = lambda *extra: lambda g, o: ["gif2webp", "-quiet", "-q", "100", "-m", "6", *extra, g, "-o", o]
tools = [
    ("gif2webp -q 100 -m 6", gif2webp(), False),
    ("gif2webp -q 100 -m 6 -min_size", gif2webp("-min_size"), False),
    ("cwebp -lossless -z 9", lambda g, o: ["cwebp", "-quiet", "-lossless", "-z", "9", quick(g), "-o", o], True),
]
print(f"{'tool':<34} {'GIFs':<9} {'files':>5} {'GIF bytes':>11} {'kept bytes':>11} {'CPU s':>8} {'s/MB':>7} {'smaller':>7}")
only = os.environ.get("ONLY")
for name, cmd, still_only in tools:
    if only and not name.startswith(only):
        continue
    sums = {}
    for g in gifs:
        if still_only and kinds[g] != "still":
            continue
        out = os.path.join(work, "out.webp")
        args = cmd(g, out)
        before = cpu()
        ok = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        spent = cpu() - before
        gb = os.path.getsize(g)
        wb = os.path.getsize(out) if ok and os.path.exists(out) else None
        s = sums.setdefault(kinds[g], [0, 0, 0, 0.0, 0])
        s[0] += 1; s[1] += gb; s[2] += min(gb, wb) if wb else gb; s[3] += spent; s[4] += int(bool(wb and wb < gb))
        if os.path.exists(out):
            os.remove(out)
    for kind in [k for k in ("still", "animated") if k in sums]:
        n, gb, kept, spent, smaller = sums[kind]
        print(f"{name:<34} {kind:<9} {n:>5} {gb:>11} {kept:>11} {spent:>8.2f} {spent / (gb / 1e6) if gb else 0:>7.2f} {smaller:>7}")
PY
  exit 0
fi
command -v optipng >/dev/null || { echo "optipng is missing: apt-get install -y optipng"; exit 1; }

BUILD_PROFILE=${BUILD_PROFILE:-dist}
CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build --profile "$BUILD_PROFILE" --quiet
BIN=$(cd "${CARGO_TARGET_DIR:-target}/$BUILD_PROFILE" && pwd)/webdiet
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
