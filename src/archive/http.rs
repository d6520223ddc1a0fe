//! The HTTP layer inside a `response` record (and an ARC record): the status line and headers
//! (httparse, with a size cap), and the body as the browser saw it: de-chunked
//! (`Transfer-Encoding: chunked` is stored as sent, WARC 1.1 §6.3) and its `Content-Encoding`
//! decoded ([`crate::deflate::stream`]). Both readers stream, so a body never has to fit in memory. Browsertrix
//! stores some bodies already decoded and renames the headers that no longer hold to `x-orig-…`:
//! the framing is then read from the headers as they stand, and what was sent from the
//! `x-orig-` ones.

use std::io::{self, BufRead, Read};

/// The most bytes an HTTP header block may take (status line and headers).
pub const MAX_HEAD: usize = 64 << 10;
/// The most header fields one response may have.
const MAX_FIELDS: usize = 256;
/// The longest chunk-size line (with extensions) a chunked body may have.
const MAX_CHUNK_LINE: usize = 4 << 10;

/// A response's status line and header fields, as captured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpHead {
    pub status: u16,
    pub reason: String,
    /// Every field in order, names as written, values read as Latin-1 where not UTF-8.
    pub fields: Vec<(String, String)>,
    /// Bytes of the head, blank line included: what it took on the wire.
    pub len: usize,
}

impl HttpHead {
    /// The first field of that name (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    }

    /// A field as the server sent it: the field itself or, where Browsertrix renamed it after
    /// decoding the body, `x-orig-NAME`.
    pub fn sent(&self, name: &str) -> Option<&str> {
        self.get(name)
            .or_else(|| self.get(&format!("x-orig-{name}")))
    }

    /// The media type without parameters, lower-cased (`text/html`), if there is one.
    pub fn media_type(&self) -> Option<String> {
        self.get("content-type")
            .map(essence)
            .filter(|m| !m.is_empty())
    }

    /// The `charset` parameter of `Content-Type`, if any.
    pub fn charset(&self) -> Option<String> {
        charset_of(self.get("content-type")?)
    }

    /// The body is framed in chunks.
    pub fn chunked(&self) -> bool {
        self.get("transfer-encoding")
            .is_some_and(|te| te.to_ascii_lowercase().contains("chunked"))
    }

    /// The content codings still applied to the stored body, outermost last (`gzip`), without
    /// `identity`.
    pub fn codings(&self) -> Vec<String> {
        self.get("content-encoding")
            .map(|v| {
                v.split(',')
                    .map(|c| c.trim().to_ascii_lowercase())
                    .filter(|c| !c.is_empty() && c != "identity")
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// `text/html; charset=x` → `text/html`.
pub fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The `charset` parameter of a Content-Type value.
pub fn charset_of(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_string())
            .filter(|v| !v.is_empty())
    })
}

/// What parsing the start of a block found.
pub enum Parsed {
    Head(HttpHead),
    /// More bytes are needed (and `buf` is shorter than [`MAX_HEAD`]).
    Partial,
    Invalid(String),
}

/// Parses an HTTP response head at the start of `buf` (more of the block may follow).
pub fn parse_head(buf: &[u8]) -> Parsed {
    parse(buf, false)
}

/// Parses the HTTP response head at the start of `block`, a whole record block: a head that
/// the block's end ends (no blank line after it) is a head with no body.
pub fn parse_block_head(block: &[u8]) -> Parsed {
    parse(block, true)
}

/// httparse first; where it refuses what warcio and pywb read, the lenient reading
/// ([`lenient`]).
fn parse(buf: &[u8], at_end: bool) -> Parsed {
    match strict(buf) {
        Parsed::Invalid(why) => match lenient(buf, at_end) {
            Lenient::Head(head) => Parsed::Head(head),
            Lenient::NotYet => Parsed::Partial,
            Lenient::Never => Parsed::Invalid(why),
        },
        Parsed::Partial if at_end => match lenient(buf, true) {
            Lenient::Head(head) => Parsed::Head(head),
            _ => Parsed::Invalid("the block ends inside the HTTP header block".into()),
        },
        parsed => parsed,
    }
}

/// What the lenient reading found.
enum Lenient {
    Head(HttpHead),
    /// No blank line ends the head yet.
    NotYet,
    /// The first line is no status line: more bytes will not help.
    Never,
}

fn strict(buf: &[u8]) -> Parsed {
    let mut fields = [httparse::EMPTY_HEADER; MAX_FIELDS];
    let mut response = httparse::Response::new(&mut fields);
    match response.parse(buf) {
        Ok(httparse::Status::Complete(len)) => Parsed::Head(HttpHead {
            status: response.code.unwrap_or(0),
            reason: response.reason.unwrap_or("").to_string(),
            fields: response
                .headers
                .iter()
                .map(|h| (h.name.to_string(), latin1(h.value)))
                .collect(),
            len,
        }),
        Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => Parsed::Partial,
        Ok(httparse::Status::Partial) => {
            Parsed::Invalid(format!("HTTP header block larger than {MAX_HEAD} bytes"))
        }
        Err(e) => Parsed::Invalid(format!("not an HTTP response head: {e}")),
    }
}

/// The lenient reading of a head that httparse refuses, as warcio's `StatusAndHeadersParser`
/// reads it: lines end with LF after any number of CRs (pywb's `missing-status-text.warc`
/// ends them with CR CR LF), the status line is `HTTP/x.y CODE` with or without a reason
/// phrase, a field line without a colon is skipped, a line starting with white space continues
/// the field before it, and at the end of a whole block (`at_end`) a head without its blank
/// line ends there.
fn lenient(buf: &[u8], at_end: bool) -> Lenient {
    let mut lines = Vec::new();
    let mut at = 0;
    let len = loop {
        if at >= buf.len() {
            if !at_end || lines.is_empty() {
                return Lenient::NotYet;
            }
            break buf.len();
        }
        let (line, next) = match buf[at..].iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[at..at + i], at + i + 1),
            None if at_end => (&buf[at..], buf.len()),
            None => {
                let rest = &buf[at..];
                let http = rest.starts_with(b"HTTP/") || b"HTTP/".starts_with(rest);
                return match lines.is_empty() && !http {
                    true => Lenient::Never,
                    false => Lenient::NotYet,
                };
            }
        };
        let mut line = line;
        while let Some(rest) = line.strip_suffix(b"\r") {
            line = rest;
        }
        at = next;
        if lines.is_empty() && status_of(line).is_none() {
            return Lenient::Never;
        }
        if line.is_empty() {
            break at;
        }
        lines.push(line);
        if lines.len() > MAX_FIELDS + 1 {
            return Lenient::Never;
        }
    };
    let Some((status, reason)) = status_of(lines[0]) else {
        return Lenient::Never;
    };
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in &lines[1..] {
        let text = latin1(line);
        if text.starts_with([' ', '\t']) {
            if let Some(last) = fields.last_mut() {
                last.1.push(' ');
                last.1.push_str(text.trim());
            }
        } else if let Some((name, value)) = text.split_once(':') {
            fields.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    Lenient::Head(HttpHead {
        status,
        reason,
        fields,
        len,
    })
}

/// `HTTP/1.0 302`, `HTTP/1.0 302 `, `HTTP/1.1 200 OK`: the status and reason phrase.
fn status_of(line: &[u8]) -> Option<(u16, String)> {
    let line = latin1(line);
    let mut words = line.splitn(3, [' ', '\t']);
    let version = words.next()?;
    let code = words.next()?;
    let valid = version.starts_with("HTTP/") && code.len() == 3;
    let status = code.parse().ok().filter(|_| valid)?;
    Some((status, words.next().unwrap_or("").trim().to_string()))
}

/// Reads the head from `r` (at most [`MAX_HEAD`] bytes and `limit`, the block's length);
/// returns it and the bytes read past it, which start the body.
pub fn read_head(r: &mut dyn BufRead, limit: u64) -> Result<(HttpHead, Vec<u8>), String> {
    let mut buf = Vec::new();
    let cap = (MAX_HEAD as u64).min(limit) as usize;
    loop {
        let want = (cap - buf.len()).min(8 << 10);
        let mut chunk = vec![0; want];
        let n = if want == 0 {
            0
        } else {
            r.read(&mut chunk).map_err(|e| e.to_string())?
        };
        buf.extend_from_slice(&chunk[..n]);
        // The whole block is read: a head may end with it.
        let at_end = n == 0 && (buf.len() as u64) < MAX_HEAD as u64;
        match parse(&buf, at_end) {
            Parsed::Head(head) => {
                let rest = buf.split_off(head.len);
                return Ok((head, rest));
            }
            Parsed::Invalid(why) => return Err(why),
            Parsed::Partial if n == 0 => {
                return Err(if buf.len() >= cap && cap == MAX_HEAD {
                    format!("HTTP header block larger than {MAX_HEAD} bytes")
                } else {
                    "the block ends inside the HTTP header block".to_string()
                })
            }
            Parsed::Partial => {}
        }
    }
}

fn latin1(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

/// How a body declared `Transfer-Encoding: chunked` turned out to be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Not read yet: the first line decides.
    Undecided,
    /// In chunks, as sent (WARC 1.1 §6.3): de-chunked as it is read.
    Chunked,
    /// As the payload itself: not declared chunked, or declared chunked and stored already
    /// de-chunked (crawlers often write that, keeping the header), read as stored.
    AsStored,
}

/// A body, de-chunked as it is read (RFC 9112 §7.1) when it is stored in chunks. Chunk
/// extensions and trailers are skipped. A body declared chunked whose first line is not a
/// chunk-size line was stored de-chunked: it is read as stored, as warcio's `ChunkedDataReader`
/// and pywb read it. Once the first line was a chunk size, a malformed size line later or a
/// body that ends inside a chunk is an error (a cut or corrupt body, not a short file).
pub struct Dechunk<R> {
    inner: R,
    framing: Framing,
    /// Bytes left in the current chunk.
    left: u64,
    done: bool,
    /// The first line, read to decide and given back when the body is read as stored.
    first: Vec<u8>,
    given: usize,
}

impl<R: BufRead> Dechunk<R> {
    /// A body declared chunked: its first line decides how it is read.
    pub fn new(inner: R) -> Self {
        Dechunk {
            inner,
            framing: Framing::Undecided,
            left: 0,
            done: false,
            first: Vec::new(),
            given: 0,
        }
    }

    /// A body not declared chunked, read as stored.
    pub fn as_stored(inner: R) -> Self {
        Dechunk {
            framing: Framing::AsStored,
            ..Dechunk::new(inner)
        }
    }

    /// How the body is being read (`Undecided` until the first read).
    pub fn framing(&self) -> Framing {
        self.framing
    }

    fn line(&mut self) -> io::Result<String> {
        let mut line = Vec::new();
        (&mut self.inner)
            .take(MAX_CHUNK_LINE as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if line.len() > MAX_CHUNK_LINE {
            return Err(bad("chunk-size line longer than 4 KiB"));
        }
        if !line.ends_with(b"\n") {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the body ends inside a chunk-size line",
            ));
        }
        Ok(String::from_utf8_lossy(&line).trim().to_string())
    }

    /// Reads the first line: a chunk-size line (hex digits, maybe extensions, CRLF, as
    /// warcio requires) starts the chunks; anything else is the start of a body stored as is.
    fn decide(&mut self) -> io::Result<()> {
        let mut line = Vec::new();
        (&mut self.inner)
            .take(MAX_CHUNK_LINE as u64 + 1)
            .read_until(b'\n', &mut line)?;
        match line.strip_suffix(b"\r\n").and_then(chunk_size) {
            Some(size) => {
                self.framing = Framing::Chunked;
                self.start_chunk(size)?;
            }
            None => {
                self.framing = Framing::AsStored;
                self.first = line;
            }
        }
        Ok(())
    }

    /// Enters a chunk of `size` bytes; the last chunk (0) reads the trailer fields up to the
    /// blank line (or the end of the block).
    fn start_chunk(&mut self, size: u64) -> io::Result<()> {
        self.left = size;
        if size == 0 {
            for _ in 0..MAX_FIELDS {
                match self.line() {
                    Ok(l) if l.is_empty() => break,
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(e),
                }
            }
            self.done = true;
        }
        Ok(())
    }

    fn read_stored(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.given < self.first.len() {
            let n = buf.len().min(self.first.len() - self.given);
            buf[..n].copy_from_slice(&self.first[self.given..self.given + n]);
            self.given += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

/// The size of a chunk-size line without its line end (`1a2;ext=1` → 0x1a2), if it is one.
fn chunk_size(line: &[u8]) -> Option<u64> {
    let size = line.split(|&b| b == b';').next()?;
    let size = std::str::from_utf8(size).ok()?.trim_matches([' ', '\t']);
    let hex = !size.is_empty() && size.len() <= 16 && size.bytes().all(|b| b.is_ascii_hexdigit());
    hex.then(|| u64::from_str_radix(size, 16).ok()).flatten()
}

fn bad(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

impl<R: BufRead> Read for Dechunk<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.framing == Framing::Undecided {
            self.decide()?;
        }
        if self.framing == Framing::AsStored {
            return self.read_stored(buf);
        }
        if self.done {
            return Ok(0);
        }
        if self.left == 0 {
            let line = self.line()?;
            let size = line.split(';').next().unwrap_or("").trim();
            let size = u64::from_str_radix(size, 16)
                .map_err(|_| bad(&format!("bad chunk size {size:?}")))?;
            self.start_chunk(size)?;
            if self.done {
                return Ok(0);
            }
        }
        let want = buf.len().min(self.left.min(usize::MAX as u64) as usize);
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the body ends inside a chunk",
            ));
        }
        self.left -= n as u64;
        if self.left == 0 {
            let mut crlf = [0u8; 2];
            self.inner.read_exact(&mut crlf[..1])?;
            if crlf[0] == b'\r' {
                self.inner.read_exact(&mut crlf[1..])?;
            }
        }
        Ok(n)
    }
}

/// Wraps a body in the decoders its content codings need, innermost first; an unknown coding
/// (`br`, `zstd`, `compress`) is an error naming it.
pub fn decoded<'a>(
    body: Box<dyn BufRead + 'a>,
    codings: &[String],
) -> Result<Box<dyn Read + 'a>, String> {
    let mut reader: Box<dyn BufRead + 'a> = body;
    for coding in codings.iter().rev() {
        reader = match coding.as_str() {
            "gzip" | "x-gzip" => {
                Box::new(io::BufReader::new(crate::deflate::stream::gunzip(reader)))
            }
            "deflate" => {
                // RFC 9110 says zlib; some servers sent raw deflate. The zlib header decides.
                let head = reader.fill_buf().map_err(|e| e.to_string())?;
                let zlib = head.len() >= 2
                    && head[0] & 0x0f == 8
                    && (u16::from(head[0]) << 8 | u16::from(head[1])) % 31 == 0;
                if zlib {
                    Box::new(io::BufReader::new(crate::deflate::stream::inflate_zlib(
                        reader,
                    )))
                } else {
                    Box::new(io::BufReader::new(crate::deflate::stream::inflate_raw(
                        reader,
                    )))
                }
            }
            other => {
                return Err(format!(
                    "Content-Encoding {other} is not one webdiet decodes (gzip, deflate)"
                ))
            }
        };
    }
    Ok(reader)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunked_gzipped_body_comes_out_as_the_payload() {
        let payload = b"<p>hello, chunks</p>".repeat(50);
        let gz = crate::deflate::gzip(&payload, 6);
        let mut chunked = Vec::new();
        for part in gz.chunks(100) {
            chunked.extend_from_slice(format!("{:x};ext=1\r\n", part.len()).as_bytes());
            chunked.extend_from_slice(part);
            chunked.extend_from_slice(b"\r\n");
        }
        chunked.extend_from_slice(b"0\r\nX-Trailer: y\r\n\r\n");
        let body: Box<dyn BufRead> = Box::new(io::BufReader::new(Dechunk::new(&chunked[..])));
        let mut out = Vec::new();
        decoded(body, &["gzip".to_string()])
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, payload);
    }

    #[test]
    fn a_body_cut_inside_a_chunk_is_an_error_not_a_short_file() {
        let mut out = Vec::new();
        let err = Dechunk::new(&b"10\r\nabc"[..])
            .read_to_end(&mut out)
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        // After a first chunk, a bad size line is a corrupt body.
        let err = Dechunk::new(&b"3\r\nabc\r\nzz\r\nabc"[..])
            .read_to_end(&mut out)
            .unwrap_err();
        assert!(err.to_string().contains("bad chunk size"), "{err}");
    }

    /// Reads `body` through [`Dechunk::new`]: what came out and how it was framed.
    fn dechunked(body: &[u8]) -> (Vec<u8>, Framing) {
        let mut d = Dechunk::new(body);
        let mut out = Vec::new();
        d.read_to_end(&mut out).unwrap();
        (out, d.framing())
    }

    #[test]
    fn a_body_declared_chunked_but_stored_dechunked_is_read_as_stored() {
        // As pywb's iana.warc.gz stores its pages, images, fonts and style sheets.
        for stored in [
            &b"<!doctype html>\n<html><p>hello</p></html>"[..],
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
            b"\r\n<!doctype html>",
            b"/* IANA Style Sheet */\r\nbody {}",
            b"{\"a\": 1}",
            b"",
        ] {
            assert_eq!(dechunked(stored), (stored.to_vec(), Framing::AsStored));
        }
        // A first line longer than any chunk-size line is kept too.
        let long = b"x".repeat(3 * MAX_CHUNK_LINE);
        assert_eq!(dechunked(&long), (long.clone(), Framing::AsStored));
        // A chunk-size line ends with CRLF (a bare `cafe` line of a stored body is text).
        assert_eq!(
            dechunked(b"cafe\nbabe"),
            (b"cafe\nbabe".to_vec(), Framing::AsStored)
        );
        assert_eq!(
            dechunked(b"4;name=v\r\ncafe\r\n0\r\n\r\n"),
            (b"cafe".to_vec(), Framing::Chunked)
        );
        let mut plain = Dechunk::as_stored(&b"3\r\nabc\r\n0\r\n\r\n"[..]);
        let mut out = Vec::new();
        plain.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"3\r\nabc\r\n0\r\n\r\n");
    }

    #[test]
    fn heads_are_capped_and_x_orig_fields_say_what_was_sent() {
        let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=\"Shift_JIS\"\r\n\
                     x-orig-content-encoding: gzip\r\n\r\nbody";
        let Parsed::Head(h) = parse_head(head) else {
            panic!()
        };
        assert_eq!(h.media_type().as_deref(), Some("text/html"));
        assert_eq!(h.charset().as_deref(), Some("Shift_JIS"));
        assert!(h.codings().is_empty());
        assert_eq!(h.sent("content-encoding"), Some("gzip"));
        let mut huge = b"HTTP/1.1 200 OK\r\n".to_vec();
        while huge.len() <= MAX_HEAD {
            huge.extend_from_slice(format!("X-Filler: {}\r\n", "a".repeat(4000)).as_bytes());
        }
        let err = read_head(&mut &huge[..], huge.len() as u64).unwrap_err();
        assert!(err.contains("larger than"), "{err}");
    }

    /// Reads the head of a whole block as the record reader does.
    fn head_of_block(block: &[u8]) -> Result<(HttpHead, Vec<u8>), String> {
        read_head(&mut &block[..], block.len() as u64)
    }

    #[test]
    fn a_status_line_without_reason_and_lines_ending_cr_cr_lf_are_read_as_warcio_reads_them() {
        // pywb's missing-status-text.warc, byte for byte: CR CR LF line ends, no reason
        // phrase, and the block ends where the blank line would be.
        let block = b"HTTP/1.0 302 \r\r\nLocation: http://www.iana.org/badst\r\r\n\
                      Server: BigIP\r\r\nConnection: close\r\r\nContent-Length: 0";
        let (head, rest) = head_of_block(block).unwrap();
        assert_eq!((head.status, head.reason.as_str()), (302, ""));
        assert_eq!(head.get("location"), Some("http://www.iana.org/badst"));
        assert_eq!(head.get("content-length"), Some("0"));
        assert_eq!(head.len, block.len());
        assert!(rest.is_empty());
        // No reason phrase, and not even the space before it.
        for line in ["HTTP/1.0 200", "HTTP/1.0 200 "] {
            let block = format!("{line}\r\nContent-Type: text/html\r\n\r\n<p>hi</p>");
            let (head, rest) = head_of_block(block.as_bytes()).unwrap();
            assert_eq!(head.status, 200, "{line:?}");
            assert_eq!(head.media_type().as_deref(), Some("text/html"));
            assert_eq!(rest, b"<p>hi</p>");
        }
        // CR CR LF with a blank line: the body starts after it.
        let (head, rest) =
            head_of_block(b"HTTP/1.1 200 OK\r\r\nContent-Type: text/plain\r\r\n\r\r\nbody")
                .unwrap();
        assert_eq!(head.media_type().as_deref(), Some("text/plain"));
        assert_eq!(rest, b"body");
        // What is no HTTP head stays refused, and at once.
        for junk in [
            &b"<html>not a head</html>"[..],
            b"HTTP/1.0 2000 OK\r\n\r\n",
            b"",
        ] {
            assert!(head_of_block(junk).is_err(), "{junk:?}");
        }
        assert!(matches!(parse_head(b"\x89PNG\r\n"), Parsed::Invalid(_)));
        assert!(matches!(parse_head(b"GIF89a"), Parsed::Invalid(_)));
        assert!(matches!(
            parse_head(b"HTTP/1.0 302 \r\r\nLocation: x"),
            Parsed::Partial
        ));
    }

    #[test]
    fn an_unknown_coding_is_named() {
        let body: Box<dyn BufRead> = Box::new(&b"x"[..]);
        let err = decoded(body, &["br".to_string()]).err().unwrap();
        assert!(err.contains("br"));
    }
}
