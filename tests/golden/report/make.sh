#!/usr/bin/env bash
# Makes tests/golden/report/microscape/input/report.json, the fixed report the renderers' snapshot
# tests read (tests/pipeline/report_snapshots.rs): an audit of corpus/microscape by webdiet itself,
# five modes over loopback and Cable, one run, with budgets that hold, fail and warn (flags, a
# Lighthouse CI assertions file, a baseline that is an earlier audit of the same site). To keep
# the file small, each replay row's waterfall keeps its first 8 requests, and the paths of the
# temporary output directory are replaced by out/microscape. Then run
#   UPDATE_SNAPSHOTS=1 cargo test --test pipeline report_snapshots
# to rewrite expected/ from it, and read the diff.
set -euo pipefail
cd "$(dirname "$0")/../../.."
cargo build --release --quiet
bin=target/release/webdiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/lhci.json" <<'JSON'
{"ci": {"assert": {"assertions": {
  "resource-summary:image:size": ["warn", {"maxNumericValue": 60000}],
  "resource-summary:document:count": ["error", {"maxNumericValue": 1}],
  "largest-contentful-paint": ["error", {"maxNumericValue": 2500}]
}}}}
JSON
run=(audit corpus/microscape --runs 1 --modes http10,pipelined,pipelined-deflate,https-pipelined,h2)
"$bin" "${run[@]}" --out "$tmp/before" --quiet
# Budgets: max-requests fails (43 > 40), the image size is over at warn level, the rest hold.
"$bin" "${run[@]}" --out "$tmp/after" --quiet \
  --max-requests 40 --max-first-visit-bytes 200000 --max-time Cable=100000 \
  --budgets "$tmp/lhci.json" --baseline "$tmp/before/report.json" \
  --max-regression bytes=0,requests=0,packets=2 || test $? -eq 1
python3 - "$tmp" tests/golden/report/microscape/input/report.json <<'PY'
import json, sys
tmp, out = sys.argv[1], sys.argv[2]
text = open(f"{tmp}/after/report.json").read().replace(tmp + "/after", "out/microscape")
text = text.replace(tmp + "/before", "out/before").replace(tmp + "/", "")
report = json.loads(text)
for row in report["replay"]:
    row["waterfall"] = row["waterfall"][:8]
with open(out, "w") as f:
    json.dump(report, f, indent=2, ensure_ascii=False)
    f.write("\n")
PY
echo "wrote tests/golden/report/microscape/input/report.json"
