//! Web archives as input and output (docs/archives.md): a WARC, an ARC and a WACZ of the
//! default corpus read as the same site as the directory; the capture → site rules (several
//! captures, revisits, redirects, errors, query strings, HTTP charsets, third parties); hostile
//! archives; `--emit-wacz` and the archivists' own tools on what it writes; captures as other
//! tools write them, and pywb's own sample archives read as pywb reads them.
//!
//! One test binary per subject (as ripgrep keeps one): each integration binary links the
//! whole crate, so one per test file would cost more to build than the tests take to run.

#[path = "../common/mod.rs"]
mod common;

mod audit;
mod captures;
mod emit;
mod hostile;
mod killed;
mod memory;
mod pywb;
mod quirks;
mod reading;
mod scale;
mod tools;
mod traversal;
