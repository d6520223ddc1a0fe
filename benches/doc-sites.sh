# Sourced by the benchmarks that run on real documentation sites (modern-sites.sh,
# png-webp.sh): Sphinx's and Doxygen's own manuals as Debian installs them, the doc packages
# and the script libraries their symbolic links point into, fetched with `apt-get download`
# and unpacked into WORK/root once (nothing of them is committed).
#
#   fetch_doc_sites WORK   # then WORK/root/usr/share/doc/{sphinx-doc,doxygen}/html
fetch_doc_sites() {
  local work=$1
  if [ ! -d "$work/root/usr/share/doc/sphinx-doc/html" ]; then
    (cd "$work" && apt-get download sphinx-doc doxygen-doc libjs-sphinxdoc libjs-jquery \
       libjs-underscore >/dev/null 2>&1)
    mkdir -p "$work/root"
    for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
  fi
}
