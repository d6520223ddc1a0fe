//! Writing records: WARC 1.1 with each record its own gzip member (Annex D: what warcio,
//! pywb and ReplayWeb.page read by offset; a whole-file gzip is what they refuse), with
//! `WARC-Block-Digest` and, for HTTP responses, `WARC-Payload-Digest`; and ARC v1 records, for
//! the test archives. Record IDs are name-based UUIDs (SHA-1 of the record's URI, date, type and
//! block), so the same input gives the same records.

use std::io::{self, Write};

use super::stamp::Stamp;
use crate::digest::{self, Running};

/// A record to write.
#[derive(Debug, Clone)]
pub struct Record<'a> {
    pub rtype: &'a str,
    pub uri: Option<&'a str>,
    pub date: Stamp,
    /// `Content-Type` of the block (`application/http; msgtype=response`).
    pub content_type: Option<&'a str>,
    /// More named fields, in order (`WARC-Refers-To`, `WARC-Profile`, …).
    pub fields: Vec<(&'a str, String)>,
    pub block: &'a [u8],
    /// Where the HTTP body starts in `block` (for the payload digest), for HTTP records.
    pub payload_at: Option<usize>,
}

/// Where a record landed in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub record_id: String,
    pub offset: u64,
    pub length: u64,
    pub payload_digest: Option<String>,
}

/// A WARC (or ARC) file being written, one gzip member per record when `gzip`.
pub struct Writer<W: Write> {
    out: W,
    offset: u64,
    gzip: bool,
    /// The gzip level. Default: 6.
    level: u32,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W, gzip: bool) -> Self {
        Writer {
            out,
            offset: 0,
            gzip,
            level: 6,
        }
    }

    /// The same, gzipping at `level` (1 for bulk data that will not compress anyway).
    pub fn with_level(mut self, level: u32) -> Self {
        self.level = level;
        self
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Writes bytes as one unit: a gzip member of their own, or as they are.
    fn unit(&mut self, bytes: &[u8]) -> io::Result<(u64, u64)> {
        let start = self.offset;
        let written = if self.gzip {
            let member = crate::deflate::gzip(bytes, self.level);
            self.out.write_all(&member)?;
            member.len()
        } else {
            self.out.write_all(bytes)?;
            bytes.len()
        };
        self.offset += written as u64;
        Ok((start, written as u64))
    }

    /// Writes a WARC 1.1 record.
    pub fn warc(&mut self, r: &Record<'_>) -> io::Result<Written> {
        let block_digest = digest::sha1_warc(r.block);
        let payload_digest = r
            .payload_at
            .map(|at| digest::sha1_warc(&r.block[at.min(r.block.len())..]));
        let record_id = record_id(r);
        let mut head = String::from("WARC/1.1\r\n");
        let mut field = |name: &str, value: &str| {
            head.push_str(name);
            head.push_str(": ");
            head.push_str(value);
            head.push_str("\r\n");
        };
        field("WARC-Type", r.rtype);
        field("WARC-Record-ID", &record_id);
        field("WARC-Date", &r.date.to_iso());
        if let Some(uri) = r.uri {
            field("WARC-Target-URI", uri);
        }
        for (name, value) in &r.fields {
            field(name, value);
        }
        field("WARC-Block-Digest", &block_digest);
        if let Some(d) = &payload_digest {
            field("WARC-Payload-Digest", d);
        }
        if let Some(t) = r.content_type {
            field("Content-Type", t);
        }
        field("Content-Length", &r.block.len().to_string());
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(r.block);
        bytes.extend_from_slice(b"\r\n\r\n");
        let (offset, length) = self.unit(&bytes)?;
        Ok(Written {
            record_id,
            offset,
            length,
            payload_digest,
        })
    }

    /// Writes an ARC v1 record (`URL IP DATE MIME LENGTH`, the block, a newline).
    pub fn arc(
        &mut self,
        uri: &str,
        ip: &str,
        date: Stamp,
        mime: &str,
        block: &[u8],
    ) -> io::Result<(u64, u64)> {
        let mut bytes = format!("{uri} {ip} {} {mime} {}\n", date.to14(), block.len()).into_bytes();
        bytes.extend_from_slice(block);
        bytes.push(b'\n');
        self.unit(&bytes)
    }

    /// Writes bytes as they are (a test writes a broken record this way).
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<(u64, u64)> {
        let start = self.offset;
        self.out.write_all(bytes)?;
        self.offset += bytes.len() as u64;
        Ok((start, bytes.len() as u64))
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// `<urn:uuid:…>`, version 5 style: from the SHA-1 of what makes the record this record.
fn record_id(r: &Record<'_>) -> String {
    let mut d = Running::sha1();
    d.update(r.rtype.as_bytes());
    d.update(r.uri.unwrap_or("").as_bytes());
    d.update(r.date.to_iso().as_bytes());
    for (n, v) in &r.fields {
        d.update(n.as_bytes());
        d.update(v.as_bytes());
    }
    d.update(r.block);
    let hex = d.hex();
    let mut b: Vec<u8> = (0..16)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect();
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// The WARC profile URIs of revisits (WARC 1.1).
pub const IDENTICAL_PAYLOAD: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";
pub const NOT_MODIFIED: &str = "http://netpreserve.org/warc/1.1/revisit/server-not-modified";

/// A `warcinfo` block naming the software.
pub fn warcinfo_block(software: &str, description: &str) -> Vec<u8> {
    format!(
        "software: {software}\r\nformat: WARC File Format 1.1\r\n\
         conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n\
         description: {description}\r\n"
    )
    .into_bytes()
}

#[cfg(test)]
mod tests;
