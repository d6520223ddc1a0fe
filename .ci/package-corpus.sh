#!/usr/bin/env bash
# Fetches the real style sheets and scripts the minifier's proofs are tested on (issue 41,
# item 6): the files of Debian's `libjs-*` and icon-font packages, written by their projects, not
# by us. `apt-get download` fetches each .deb without installing it; `dpkg-deb -x` unpacks it
# under target/package-corpus/root, where the tests look (WEBDIET_PACKAGE_CORPUS names another
# directory than target/package-corpus; its files are then under its root/). Needs `apt-get
# update` first. Re-running skips what is already unpacked.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(
  libjs-jquery libjs-jquery-ui libjs-bootstrap libjs-bootstrap4 libjs-bootstrap5
  libjs-underscore libjs-backbone libjs-d3 libjs-highlight.js libjs-leaflet libjs-moment
  libjs-codemirror libjs-select2.js libjs-sphinxdoc libjs-es5-shim libjs-requirejs
  libjs-handlebars libjs-mustache libjs-prototype libjs-scriptaculous libjs-mootools
  libjs-chosen libjs-popper.js libjs-lodash libjs-async libjs-angularjs libjs-jquery-datatables
  libjs-chart.js libjs-qunit libjs-sizzle libjs-modernizr libjs-excanvas libjs-dojo-core
  libjs-jquery-tablesorter fonts-font-awesome fonts-fork-awesome
)
corpus=${WEBDIET_PACKAGE_CORPUS:-target/package-corpus}
mkdir -p "$corpus/debs" "$corpus/root"
for p in "${packages[@]}"; do
  [ -f "$corpus/root/.done-$p" ] && continue
  (cd "$corpus/debs" && apt-get download -q "$p")
  dpkg-deb -x "$corpus"/debs/"${p}"_*.deb "$corpus/root"
  touch "$corpus/root/.done-$p"
done
echo "package corpus: ${#packages[@]} packages under $corpus/root"
