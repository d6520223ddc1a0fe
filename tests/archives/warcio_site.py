"""The site a web archive holds, written as a directory by warcio alone, independently of
webdiet: the reference that tests/archives/pywb.rs compares webdiet's reading of the same
archives with (the same pages, the same savings).

    warcio_site.py OUT ARCHIVE...

The rule, as a person would save a crawl with warcio: every `response` record with HTTP
status 200 of the archive's main host (the host with the most `text/html` 200 responses, the
first captured on a tie; `www.` or `www2.` aside, as SURT has it), the latest capture of each
URL (by WARC-Date, the later record on a tie), its payload decoded as warcio decodes it
(`content_stream()`: de-chunked, content-decoded) and written under the URL's path,
percent-decoded, with `index.html` for a directory URL. A record whose digest warcio finds
wrong is damaged and left out, as `warcio check` reports it (pywb's example-extra.warc holds
its one capture twice, the second a byte short). Two rules a directory needs:

- a directory has no query strings: a URL's query is dropped (a capture of the same path
  without a query comes first);
- a page (`text/html`) whose name does not end in `.html` or `.htm` gets `.html` appended,
  as `wget --adjust-extension` saves it: a server serves a file by its name, and `/domains`
  and `/domains/arpa` could not both be files otherwise.

Prints the origin of the main host (`http://www.example.com/`) on stdout, for `--site-url`.
Revisits and `resource` records are not read: this is the plain reading the test holds
webdiet's to, not a second implementation of it.
"""

import os
import re
import sys
from urllib.parse import unquote_to_bytes, urlsplit

from warcio.archiveiterator import ArchiveIterator


def host_key(host):
    host = (host or "").lower().rstrip(".")
    m = re.match(r"^www\d*\.(.+)$", host)
    return m.group(1) if m and "." in m.group(1) else host


def captures(paths):
    """Every 200 response with an http(s) URL, in record order."""
    order = 0
    for path in paths:
        with open(path, "rb") as stream:
            for record in ArchiveIterator(stream, arc2warc=True, check_digests=True):
                if record.rec_type != "response" or not record.http_headers:
                    continue
                uri = record.rec_headers.get_header("WARC-Target-URI") or ""
                url = urlsplit(uri)
                if url.scheme not in ("http", "https") or not url.hostname:
                    continue
                if record.http_headers.get_statuscode() != "200":
                    continue
                mime = (record.http_headers.get_header("Content-Type") or "").split(";")[0]
                payload = record.content_stream().read()
                if record.digest_checker.passed is False:
                    continue
                order += 1
                yield {
                    "url": url,
                    "host": host_key(url.hostname),
                    "html": mime.strip().lower() == "text/html",
                    "date": record.rec_headers.get_header("WARC-Date") or "",
                    "order": order,
                    "payload": payload,
                }


def name_of(capture):
    path = unquote_to_bytes(capture["url"].path or "/")
    if path.endswith(b"/"):
        path += b"index.html"
    segments = [s for s in path.split(b"/") if s]
    if any(s in (b".", b"..") for s in segments):
        return None
    name = b"/".join(segments)
    if capture["html"] and not re.search(rb"\.html?$", name, re.IGNORECASE):
        name += b".html"
    return name


def main(out, paths):
    found = list(captures(paths))
    pages, first, origin = {}, {}, {}
    for c in found:
        pages[c["host"]] = pages.get(c["host"], 0) + int(c["html"])
        if c["host"] not in first:
            first[c["host"]] = c["order"]
            origin[c["host"]] = "%s://%s/" % (c["url"].scheme, c["url"].hostname)
    if not found:
        os.makedirs(out, exist_ok=True)
        return
    main_host = max(first, key=lambda h: (pages[h], -first[h]))
    chosen = {}
    for c in found:
        if c["host"] != main_host:
            continue
        name = name_of(c)
        if name is None:
            continue
        # A capture without a query comes before one with; then the latest, then the later.
        rank = (not c["url"].query, c["date"], c["order"])
        if name not in chosen or rank > chosen[name][0]:
            chosen[name] = (rank, c["payload"])
    os.makedirs(out, exist_ok=True)
    for name, (_, payload) in chosen.items():
        target = os.path.join(os.fsencode(out), name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(payload)
    print(origin[main_host])


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: warcio_site.py OUT ARCHIVE...")
    main(sys.argv[1], sys.argv[2:])
