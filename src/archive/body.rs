//! Reads one capture's body out of its record, streamed: the HTTP head, then the body
//! de-chunked (when it is stored in chunks: many crawlers store it de-chunked under a
//! `Transfer-Encoding: chunked` header) and decoded into a writer, with the payload digest of
//! a body stored as is checked on the way (a body stored in chunks is not checked: tools
//! differ on what they digest, warcio#74).

use std::io::{self, BufRead, BufReader, Read, Write};

use super::http::{self, Dechunk, Framing, HttpHead};
use super::index::{Entry, Index};
use super::record;
use crate::digest::{self, Running};

/// What reading a body found.
#[derive(Debug, Clone, Default)]
pub struct Body {
    /// The HTTP head of the record (none for a `resource` record).
    pub head: Option<HttpHead>,
    /// Bytes of the decoded payload written.
    pub payload_bytes: u64,
    /// The body was stored in chunks and de-chunked.
    pub dechunked: bool,
    /// The head says `Transfer-Encoding: chunked` and the body was stored de-chunked: read as
    /// stored.
    pub chunked_as_stored: bool,
    /// The record declares a payload digest and neither form of the body matches it.
    pub digest_mismatch: Option<String>,
}

/// A reader that hashes what passes through it.
struct Hashing<R> {
    inner: R,
    digest: Running,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.digest.update(&buf[..n]);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Hashing<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        if let Ok(buf) = self.inner.fill_buf() {
            let n = amt.min(buf.len());
            self.digest.update(&buf[..n]);
        }
        self.inner.consume(amt);
    }
}

/// Reads the record at `entry` and writes its payload to `out`, at most `cap` bytes (more is
/// an error: a decompression bomb, or a body webdiet would not hold).
pub fn read(index: &Index, entry: &Entry, out: &mut dyn Write, cap: u64) -> Result<Body, String> {
    let seg = &index.segments[entry.segment];
    let (header, mut block) = record::open_record(seg, entry.offset).map_err(|e| e.to_string())?;
    let arc_http = header.fields.is_empty()
        && (header.uri.starts_with("http:") || header.uri.starts_with("https:"));
    let (head, body): (Option<HttpHead>, Box<dyn BufRead>) = if header.holds_http() || arc_http {
        let (head, rest) = http::read_head(&mut block, header.block_len)?;
        (
            Some(head),
            Box::new(BufReader::new(io::Cursor::new(rest).chain(block))),
        )
    } else {
        (None, block)
    };
    // The declared digest's algorithm is the one computed (SHA-1 when it names none webdiet
    // computes: it is then not checked).
    let declared = entry
        .payload_digest
        .as_deref()
        .map(|d| digest::parse(d).map(|(algorithm, _)| algorithm));
    let mut stored = Hashing {
        inner: body,
        digest: Running::of(declared.flatten().unwrap_or(digest::Algorithm::Sha1)),
    };
    let chunked = head.as_ref().is_some_and(HttpHead::chunked);
    let codings = head.as_ref().map(HttpHead::codings).unwrap_or_default();
    let (payload_bytes, framing) = {
        let mut framed = if chunked {
            Dechunk::new(&mut stored)
        } else {
            Dechunk::as_stored(&mut stored)
        };
        let mut decoded = http::decoded(Box::new(BufReader::new(&mut framed)), &codings)?;
        let n =
            io::copy(&mut (&mut decoded).take(cap + 1), out).map_err(|e| format!("body: {e}"))?;
        if n > cap {
            return Err(format!(
                "the decoded body is larger than {cap} bytes, the most webdiet reads of one file"
            ));
        }
        // What the decoders left (a gzip trailer) still belongs to the body.
        io::copy(&mut decoded, &mut io::sink()).map_err(|e| format!("body: {e}"))?;
        drop(decoded);
        (n, framed.framing())
    };
    let dechunked = framing == Framing::Chunked;
    // Whatever the decoders did not pull (padding after a gzip body) still counts as stored.
    io::copy(&mut stored, &mut io::sink()).map_err(|e| format!("body: {e}"))?;
    let stored_digest = stored.digest.warc();
    let checkable = matches!(declared, Some(Some(_)));
    let digest_mismatch = match &entry.payload_digest {
        Some(declared) if checkable && entry.rtype != record::RecordType::Revisit && !dechunked => {
            (!digest::same(declared, &stored_digest)).then(|| {
                format!("WARC-Payload-Digest {declared}, the body hashes to {stored_digest}")
            })
        }
        _ => None,
    };
    Ok(Body {
        head,
        payload_bytes,
        dechunked,
        chunked_as_stored: chunked && !dechunked,
        digest_mismatch,
    })
}

/// The HTTP head of a record alone (a revisit's own headers).
pub fn head_of(index: &Index, entry: &Entry) -> Option<HttpHead> {
    let seg = &index.segments[entry.segment];
    let (header, mut block) = record::open_record(seg, entry.offset).ok()?;
    if !header.holds_http() {
        return None;
    }
    http::read_head(&mut block, header.block_len)
        .ok()
        .map(|(h, _)| h)
}

/// The block of a record, as stored (its HTTP head and body), into `out`.
pub fn copy_block(index: &Index, entry: &Entry, out: &mut dyn Write) -> Result<u64, String> {
    let seg = &index.segments[entry.segment];
    let (_, mut block) = record::open_record(seg, entry.offset).map_err(|e| e.to_string())?;
    io::copy(&mut block, out).map_err(|e| e.to_string())
}
