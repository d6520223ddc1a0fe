//! Writes the test archives: a site captured through webdiet's own server into WARC (gzipped
//! record by record, and plain), ARC (both ways) and WACZ, with the things a real crawl has
//! (several captures of one URL, revisits into another file, a not-modified revisit,
//! redirects, chunked and gzip-encoded responses), a site of quirks (a query-string URL, pages
//! whose charset only HTTP gives, captured 404 and 500, a third-party host, a `.php` page and an
//! extensionless image), hostile archives, and a multi-GB archive for the memory bound.
//!
//! Usage:
//!   make-archives capture SITE_DIR OUT_DIR NAME HOST   (NAME.warc.gz, .warc, .arc.gz, .arc,
//!                                                       .wacz, NAME-earlier.warc.gz)
//!   make-archives quirks OUT_DIR                        (quirks.warc.gz)
//!   make-archives hostile OUT_DIR                       (hostile/*)
//!   make-archives big SITE_DIR OUT_FILE BYTES           (a WARC of about BYTES bytes)
//!   make-archives many OUT_FILE N                      (N tiny pages, a record each,
//!                                                       each linking to the next)
//!   make-archives traversal OUT_DIR AIM_DIR             (traversal.{warc.gz,warc,arc,wacz},
//!                                                       aimed at AIM_DIR from outside)
//!
//! Every response of `capture` is what webdiet's server sent for the request, byte for byte,
//! except where a crawl's own habits are imitated, which the code says: the server never
//! chunks, so one response is re-framed in chunks as a proxy would; it never redirects, so the
//! redirects are written as a server would have sent them.

mod capture;
mod hostile;
mod quirks;
mod traversal;

use std::path::Path;
use std::process;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let done = match args.as_slice() {
        ["capture", site, out, name, host] => {
            capture::capture(Path::new(site), Path::new(out), name, host)
        }
        ["quirks", out] => quirks::write(Path::new(out)),
        ["hostile", out] => hostile::write(Path::new(out)),
        ["traversal", out, aim] => traversal::write(Path::new(out), Path::new(aim)),
        ["many", out, n] => match n.parse::<usize>() {
            Ok(n) => capture::many(Path::new(out), n),
            Err(_) => Err(format!("{n}: not a number of records")),
        },
        ["big", site, out, bytes] => match bytes.parse::<u64>() {
            Ok(bytes) => capture::big(Path::new(site), Path::new(out), bytes),
            Err(_) => Err(format!("{bytes}: not a number of bytes")),
        },
        _ => {
            eprintln!(
                "usage: make-archives capture SITE_DIR OUT_DIR NAME HOST | quirks OUT_DIR | \
                 hostile OUT_DIR | big SITE_DIR OUT_FILE BYTES | many OUT_FILE N | \
                 traversal OUT_DIR AIM_DIR"
            );
            process::exit(2);
        }
    };
    if let Err(e) = done {
        eprintln!("make-archives: {e}");
        process::exit(1);
    }
}
