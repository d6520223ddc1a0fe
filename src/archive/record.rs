//! Records of WARC 1.0/1.1 and ARC v1 files, plain or gzipped record by record (WARC 1.1
//! Annex D), read from a window of a file (a whole `.warc.gz`, or one stored inside a WACZ).
//!
//! Why our own reader: the `warc` crate gives no record offsets (an index needs them), reads
//! header lines without a size limit and opens a missing input file by creating it
//! (docs/archives.md). This one streams, never holds a record in memory, caps every header
//! block, and keeps going after a bad record: a truncated gzip member, a Content-Length that
//! runs past the end of the file or does not end the record, a header block larger than the
//! cap. Each such record is reported where it starts, and the reader finds the next record by
//! its signature (a gzip member header, or `WARC/1.` at the start of a line).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::PathBuf;

use super::http::{self, HttpHead};
use super::stamp::Stamp;

/// The most bytes a WARC header block (or an ARC header line) may take.
pub const MAX_HEADER_BLOCK: usize = 64 << 10;

/// Which record syntax a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Warc,
    Arc,
}

/// A byte range of a file on disk that holds records.
#[derive(Debug, Clone)]
pub struct Segment {
    /// The file on disk.
    pub path: PathBuf,
    /// How messages name it: the file, or `file.wacz!archive/data.warc.gz`.
    pub name: String,
    /// The name a CDXJ `filename` gives it (the file name, or the WACZ entry's name under
    /// `archive/`).
    pub filename: String,
    pub start: u64,
    pub len: u64,
    pub syntax: Syntax,
    pub gzip: bool,
}

/// The WARC record types (and what an ARC record is read as).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordType {
    Warcinfo,
    Response,
    Resource,
    Request,
    Metadata,
    Revisit,
    Conversion,
    Continuation,
    Other(String),
}

impl RecordType {
    fn parse(text: &str) -> RecordType {
        match text.trim().to_ascii_lowercase().as_str() {
            "warcinfo" => RecordType::Warcinfo,
            "response" => RecordType::Response,
            "resource" => RecordType::Resource,
            "request" => RecordType::Request,
            "metadata" => RecordType::Metadata,
            "revisit" => RecordType::Revisit,
            "conversion" => RecordType::Conversion,
            "continuation" => RecordType::Continuation,
            other => RecordType::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            RecordType::Warcinfo => "warcinfo",
            RecordType::Response => "response",
            RecordType::Resource => "resource",
            RecordType::Request => "request",
            RecordType::Metadata => "metadata",
            RecordType::Revisit => "revisit",
            RecordType::Conversion => "conversion",
            RecordType::Continuation => "continuation",
            RecordType::Other(t) => t,
        }
    }
}

/// A record's own header: WARC named fields, or ARC's one line read into the same shape.
#[derive(Debug, Clone)]
pub struct Header {
    pub rtype: RecordType,
    /// `WARC-Target-URI` (the URL of an ARC record).
    pub uri: String,
    pub date: Option<Stamp>,
    pub record_id: Option<String>,
    /// The record's `Content-Type` (`application/http; msgtype=response`, or the MIME type of
    /// an ARC record or a `resource`).
    pub content_type: Option<String>,
    /// Bytes of the block after the header.
    pub block_len: u64,
    /// Every named field (empty for ARC).
    pub fields: Vec<(String, String)>,
}

impl Header {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the block starts with an HTTP response head.
    pub fn holds_http(&self) -> bool {
        let http_uri = self.uri.starts_with("http:") || self.uri.starts_with("https:");
        match self.rtype {
            RecordType::Response | RecordType::Revisit => {
                http_uri
                    && self
                        .content_type
                        .as_deref()
                        .is_none_or(|t| t.to_ascii_lowercase().starts_with("application/http"))
            }
            _ => false,
        }
    }
}

/// One record found by a scan.
#[derive(Debug, Clone)]
pub struct Found {
    /// Where the record (its gzip member) starts, from the start of the segment.
    pub offset: u64,
    /// Bytes it takes there (compressed, for a gzipped file).
    pub length: u64,
    pub header: Header,
    /// The HTTP head at the start of its block, when the block is an HTTP response.
    pub http: Option<Result<HttpHead, String>>,
}

/// What went wrong with one record (or with the bytes between two).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("header block larger than {MAX_HEADER_BLOCK} bytes")]
    HeaderTooLarge,
    #[error("not the start of a record ({0})")]
    NotARecord(String),
    #[error("no valid Content-Length in the record header")]
    NoLength,
    #[error("Content-Length {declared} runs past the end of the file ({left} bytes left)")]
    PastEnd { declared: u64, left: u64 },
    #[error("the record does not end where its Content-Length {declared} says")]
    BadEnd { declared: u64 },
    #[error("the gzip member ends before the record's Content-Length {declared} is read ({read} bytes of the block)")]
    ShortMember { declared: u64, read: u64 },
    #[error("truncated or corrupt gzip member: {0}")]
    Gzip(String),
    #[error("not a gzip member (the file is named .gz)")]
    NotGzip,
    #[error("{0}")]
    Io(String),
}

impl RecordError {
    /// The stable code a [`crate::error::Problem`] carries.
    pub fn code(&self) -> &'static str {
        match self {
            RecordError::HeaderTooLarge => "archive-header-too-large",
            RecordError::NotARecord(_) => "archive-not-a-record",
            RecordError::NoLength => "archive-no-length",
            RecordError::PastEnd { .. } => "archive-length-past-end",
            RecordError::BadEnd { .. } | RecordError::ShortMember { .. } => "archive-length-wrong",
            RecordError::Gzip(_) | RecordError::NotGzip => "archive-gzip-corrupt",
            RecordError::Io(_) => "unreadable",
        }
    }
}

/// A reader over `[start, start + len)` of a file, seekable within it.
pub struct Window {
    file: File,
    start: u64,
    len: u64,
    pos: u64,
}

impl Window {
    pub fn open(seg: &Segment, at: u64) -> io::Result<Window> {
        let (file, _) = crate::input::open_regular(&seg.path).map_err(io::Error::from)?;
        let mut w = Window {
            file,
            start: seg.start,
            len: seg.len,
            pos: 0,
        };
        w.seek(SeekFrom::Start(at))?;
        Ok(w)
    }
}

impl Read for Window {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.len.saturating_sub(self.pos);
        let want = buf.len().min(left.min(usize::MAX as u64) as usize);
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read(&mut buf[..want])?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Window {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => n as i128,
            SeekFrom::Current(d) => self.pos as i128 + d as i128,
            SeekFrom::End(d) => self.len as i128 + d as i128,
        };
        if target < 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before start",
            ));
        }
        let target = (target as u64).min(self.len);
        self.file.seek(SeekFrom::Start(self.start + target))?;
        self.pos = target;
        Ok(target)
    }
}

type Reader = BufReader<Window>;

/// Where a buffered reader over a window stands.
fn position(r: &Reader) -> u64 {
    r.get_ref().pos - r.buffer().len() as u64
}

/// Reads one line (through `\n`) of at most `cap` bytes into `line` (cleared first); `Ok(false)`
/// at the end of input.
fn read_line(r: &mut dyn BufRead, line: &mut Vec<u8>, cap: usize) -> Result<bool, RecordError> {
    line.clear();
    let n = r
        .take(cap as u64 + 1)
        .read_until(b'\n', line)
        .map_err(|e| RecordError::Io(e.to_string()))?;
    if n > cap {
        return Err(RecordError::HeaderTooLarge);
    }
    Ok(n > 0)
}

/// Reads a record header at the start of `r` (blank lines before it skipped). `Ok(None)` at
/// the end of input.
pub fn read_header(r: &mut dyn BufRead, syntax: Syntax) -> Result<Option<Header>, RecordError> {
    let mut line = Vec::new();
    let mut used = 0;
    loop {
        if !read_line(r, &mut line, MAX_HEADER_BLOCK)? {
            return Ok(None);
        }
        used += line.len();
        if used > MAX_HEADER_BLOCK {
            return Err(RecordError::HeaderTooLarge);
        }
        if !line.iter().all(|b| b.is_ascii_whitespace()) {
            break;
        }
    }
    match syntax {
        Syntax::Arc => arc_header(&line).map(Some),
        Syntax::Warc => {
            let first = String::from_utf8_lossy(&line).trim().to_string();
            if !first.starts_with("WARC/") {
                return Err(RecordError::NotARecord(shorten(&first)));
            }
            let mut fields: Vec<(String, String)> = Vec::new();
            loop {
                if !read_line(r, &mut line, MAX_HEADER_BLOCK - used.min(MAX_HEADER_BLOCK))? {
                    return Err(RecordError::Io(
                        "the input ends inside the record header".into(),
                    ));
                }
                used += line.len();
                if used > MAX_HEADER_BLOCK {
                    return Err(RecordError::HeaderTooLarge);
                }
                let text = String::from_utf8_lossy(&line);
                if text.trim().is_empty() {
                    break;
                }
                match text.split_once(':') {
                    Some((name, value)) if !name.starts_with([' ', '\t']) => {
                        fields.push((name.trim().to_string(), value.trim().to_string()))
                    }
                    // A continuation line (WARC allows folding).
                    _ => {
                        if let Some(last) = fields.last_mut() {
                            last.1.push(' ');
                            last.1.push_str(text.trim());
                        }
                    }
                }
            }
            let get = |n: &str| {
                fields
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(n))
                    .map(|(_, v)| v.clone())
            };
            let block_len = get("Content-Length")
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or(RecordError::NoLength)?;
            Ok(Some(Header {
                rtype: RecordType::parse(&get("WARC-Type").unwrap_or_default()),
                uri: get("WARC-Target-URI")
                    .map(|u| u.trim_start_matches('<').trim_end_matches('>').to_string())
                    .unwrap_or_default(),
                date: get("WARC-Date").and_then(|d| Stamp::parse_warc(&d)),
                record_id: get("WARC-Record-ID"),
                content_type: get("Content-Type"),
                block_len,
                fields,
            }))
        }
    }
}

/// ARC v1's header line: `URL IP-address Archive-date Content-type Archive-length` (v2 adds
/// fields before the length, which stays last). A URL with spaces keeps them.
fn arc_header(line: &[u8]) -> Result<Header, RecordError> {
    let text = String::from_utf8_lossy(line);
    let words: Vec<&str> = text.split_whitespace().collect();
    let bad = || RecordError::NotARecord(shorten(text.trim()));
    if words.len() < 5 {
        return Err(bad());
    }
    let block_len: u64 = words[words.len() - 1].parse().map_err(|_| bad())?;
    // v1: URL IP DATE MIME LEN; v2: URL IP DATE MIME CODE CHECKSUM LOCATION OFFSET FILE LEN.
    let fixed = if words.len() >= 10 { 9 } else { 4 };
    let url_words = words.len() - fixed;
    if url_words == 0 {
        return Err(bad());
    }
    let uri = words[..url_words].join(" ");
    let date = Stamp::parse14(words[url_words + 1]).ok_or_else(bad)?;
    let mime = words[url_words + 2].to_string();
    let rtype = if uri.starts_with("filedesc:") {
        RecordType::Warcinfo
    } else {
        RecordType::Response
    };
    Ok(Header {
        rtype,
        uri,
        date: Some(date),
        record_id: None,
        content_type: Some(mime),
        block_len,
        fields: Vec::new(),
    })
}

fn shorten(text: &str) -> String {
    let mut s: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        s.push('…');
    }
    s.escape_debug().to_string()
}

/// Reads the HTTP head at the start of a block of `block_len` bytes (the reader is left
/// somewhere inside the block).
fn http_of(r: &mut dyn BufRead, header: &Header) -> Option<Result<HttpHead, String>> {
    let arc_http = header.fields.is_empty()
        && (header.uri.starts_with("http:") || header.uri.starts_with("https:"));
    if !(header.holds_http() || arc_http) || header.block_len == 0 {
        return None;
    }
    Some(http::read_head(&mut r.take(header.block_len), header.block_len).map(|(h, _)| h))
}

/// Every record of a segment, in order, or the error where one could not be read. A fatal
/// error (the file cannot be opened, a whole-file gzip) is `Err`.
pub fn scan(
    seg: &Segment,
    each: &mut dyn FnMut(u64, Result<Found, RecordError>),
) -> Result<(), ScanError> {
    let window = Window::open(seg, 0).map_err(ScanError::Io)?;
    let mut r = BufReader::with_capacity(64 << 10, window);
    if seg.gzip {
        scan_gzip(seg, &mut r, each)
    } else {
        scan_plain(seg, &mut r, each)
    }
}

/// Why a whole segment could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("{0}")]
    Io(io::Error),
    #[error(
        "the whole file is one gzip stream, not a gzip member per record (WARC 1.1 Annex D); \
         records cannot be read by offset, and warcio and pywb refuse such a file too: \
         recompress it record by record (`warcio recompress`)"
    )]
    WholeFileGzip,
    #[error("not a gzip file although named .gz")]
    NotGzip,
}

fn scan_plain(
    seg: &Segment,
    r: &mut Reader,
    each: &mut dyn FnMut(u64, Result<Found, RecordError>),
) -> Result<(), ScanError> {
    loop {
        skip_blank(r).map_err(ScanError::Io)?;
        let start = position(r);
        if r.fill_buf().map_err(ScanError::Io)?.is_empty() {
            return Ok(());
        }
        match plain_record(seg, r, start) {
            Ok(found) => each(start, Ok(found)),
            Err((err, resume_from)) => {
                each(start, Err(err));
                let next = find_signature(r, resume_from, seg.syntax).map_err(ScanError::Io)?;
                match next {
                    Some(at) => {
                        r.seek(SeekFrom::Start(at)).map_err(ScanError::Io)?;
                    }
                    None => return Ok(()),
                }
            }
        }
    }
}

/// One uncompressed record at `start`; on error, the error and where to look for the next.
fn plain_record(seg: &Segment, r: &mut Reader, start: u64) -> Result<Found, (RecordError, u64)> {
    let header = match read_header(r, seg.syntax) {
        Ok(Some(h)) => h,
        Ok(None) => return Err((RecordError::Io("unexpected end".into()), start + 1)),
        Err(e) => return Err((e, start + 1)),
    };
    let block_start = position(r);
    let left = seg.len - block_start;
    if header.block_len > left {
        return Err((
            RecordError::PastEnd {
                declared: header.block_len,
                left,
            },
            block_start,
        ));
    }
    let http = http_of(r, &header);
    let end = block_start + header.block_len;
    r.seek(SeekFrom::Start(end))
        .map_err(|e| (RecordError::Io(e.to_string()), block_start))?;
    // WARC ends a record with CRLF CRLF, ARC with one LF; both tolerate more blank lines, which
    // the next read skips, and (as warcio and pywb read them) line ends of other writers:
    // pywb's missing-status-text.warc ends its record with CR CR LF CR CR LF. Anything but line
    // ends means the length lied.
    let mut tail = [0u8; 4];
    let want = match seg.syntax {
        Syntax::Warc => 4,
        Syntax::Arc => 1,
    };
    let got = read_up_to(r, &mut tail[..want])
        .map_err(|e| (RecordError::Io(e.to_string()), block_start))?;
    let line_ends = |t: &[u8]| t.contains(&b'\n') && t.iter().all(|b| matches!(b, b'\r' | b'\n'));
    let ok = match seg.syntax {
        Syntax::Warc => line_ends(&tail[..got]) || (got == 0 && end == seg.len),
        Syntax::Arc => got == 0 || tail[0] == b'\n',
    };
    if !ok {
        return Err((
            RecordError::BadEnd {
                declared: header.block_len,
            },
            block_start,
        ));
    }
    Ok(Found {
        offset: start,
        length: position(r) - start,
        header,
        http,
    })
}

fn read_up_to(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

fn skip_blank(r: &mut Reader) -> io::Result<()> {
    loop {
        let buf = r.fill_buf()?;
        let n = buf
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        let all = n == buf.len() && n > 0;
        r.consume(n);
        if !all {
            return Ok(());
        }
    }
}

/// The next place at or after `from` where a record may start: a gzip member header, `WARC/1.`
/// at the start of a line, or (ARC) a line that parses as an ARC header.
fn find_signature(r: &mut Reader, from: u64, syntax: Syntax) -> io::Result<Option<u64>> {
    r.seek(SeekFrom::Start(from))?;
    let mut carry: Vec<u8> = Vec::new();
    let mut base = from;
    loop {
        let buf = r.fill_buf()?.to_vec();
        if buf.is_empty() {
            return Ok(None);
        }
        let n = buf.len();
        r.consume(n);
        let mut hay = std::mem::take(&mut carry);
        let hay_base = base - hay.len() as u64;
        hay.extend_from_slice(&buf);
        base += n as u64;
        for i in 0..hay.len() {
            let at = hay_base + i as u64;
            if at < from {
                continue;
            }
            let at_line_start = i == 0 && at == from || i > 0 && hay[i - 1] == b'\n';
            let rest = &hay[i..];
            let hit = match (syntax, rest.first()) {
                (_, Some(0x1f)) => rest.starts_with(&[0x1f, 0x8b, 0x08]),
                (Syntax::Warc, Some(b'W')) => at_line_start && rest.starts_with(b"WARC/1."),
                (Syntax::Arc, Some(_)) if at_line_start => rest
                    .iter()
                    .position(|&b| b == b'\n')
                    .is_some_and(|e| arc_header(&rest[..=e]).is_ok()),
                _ => false,
            };
            if hit {
                return Ok(Some(at));
            }
        }
        // Keep a tail so that a signature across two reads is still found.
        let keep = hay.len().min(MAX_HEADER_BLOCK.min(1024));
        carry = hay[hay.len() - keep..].to_vec();
    }
}

fn scan_gzip(
    seg: &Segment,
    r: &mut Reader,
    each: &mut dyn FnMut(u64, Result<Found, RecordError>),
) -> Result<(), ScanError> {
    let mut first = true;
    loop {
        let start = position(r);
        let head = r.fill_buf().map_err(ScanError::Io)?;
        if head.is_empty() {
            return Ok(());
        }
        if !head.starts_with(&[0x1f, 0x8b]) {
            if first {
                return Err(ScanError::NotGzip);
            }
            // Padding some writers leave after the last member.
            if head.iter().all(|&b| b == 0) && seg.len - start < 512 {
                return Ok(());
            }
            each(start, Err(RecordError::NotGzip));
            match find_signature(r, start + 1, seg.syntax).map_err(ScanError::Io)? {
                Some(at) => {
                    r.seek(SeekFrom::Start(at)).map_err(ScanError::Io)?;
                    continue;
                }
                None => return Ok(()),
            }
        }
        let outcome = gzip_member(seg, r, start);
        match outcome {
            Member::Record(found) => each(start, Ok(found)),
            Member::More(found) if first => {
                // One member holding several records: a whole-file gzip.
                let _ = found;
                return Err(ScanError::WholeFileGzip);
            }
            Member::More(found) => each(start, Ok(found)),
            Member::Failed(err) => {
                each(start, Err(err));
                match find_signature(r, start + 1, seg.syntax).map_err(ScanError::Io)? {
                    Some(at) => {
                        r.seek(SeekFrom::Start(at)).map_err(ScanError::Io)?;
                    }
                    None => return Ok(()),
                }
            }
        }
        first = false;
    }
}

enum Member {
    Record(Found),
    /// The member holds more after its first record (read as the first only).
    More(Found),
    Failed(RecordError),
}

/// One gzip member at `start`: its record, read to the member's end.
fn gzip_member(seg: &Segment, r: &mut Reader, start: u64) -> Member {
    let gz_err = |e: io::Error| RecordError::Gzip(e.to_string());
    let mut dec = BufReader::new(crate::deflate::stream::gunzip_member(&mut *r));
    let header = match read_header(&mut dec, seg.syntax) {
        Ok(Some(h)) => h,
        Ok(None) => return Member::Failed(RecordError::Gzip("empty member".into())),
        Err(RecordError::Io(e)) => return Member::Failed(RecordError::Gzip(e)),
        Err(e) => return Member::Failed(e),
    };
    let mut block = (&mut dec).take(header.block_len);
    // The head is read through a buffer of its own; what it read ahead counts as read.
    let http = http_of(&mut BufReader::new(&mut block), &header);
    if let Err(e) = io::copy(&mut block, &mut io::sink()) {
        return Member::Failed(gz_err(e));
    }
    if block.limit() > 0 {
        return Member::Failed(RecordError::ShortMember {
            declared: header.block_len,
            read: header.block_len - block.limit(),
        });
    }
    let mut tail = Vec::new();
    let more = match (&mut dec)
        .take(MAX_HEADER_BLOCK as u64)
        .read_to_end(&mut tail)
    {
        Ok(_) => {
            let trimmed = tail
                .iter()
                .skip_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
            if trimmed > 0 {
                // Drain the rest of the member.
                if let Err(e) = io::copy(&mut dec, &mut io::sink()) {
                    return Member::Failed(gz_err(e));
                }
            }
            trimmed > 0
        }
        Err(e) => return Member::Failed(gz_err(e)),
    };
    drop(dec);
    let found = Found {
        offset: start,
        length: position(r) - start,
        header,
        http,
    };
    if more {
        Member::More(found)
    } else {
        Member::Record(found)
    }
}

/// Opens the record at `offset` of a segment: its header, and a reader over its block (the
/// block only, decompressed).
pub fn open_record(seg: &Segment, offset: u64) -> Result<(Header, Box<dyn BufRead>), RecordError> {
    let io_err = |e: io::Error| RecordError::Io(e.to_string());
    let window = Window::open(seg, offset).map_err(io_err)?;
    let r = BufReader::with_capacity(64 << 10, window);
    let mut r: Box<dyn BufRead> = if seg.gzip {
        Box::new(BufReader::new(crate::deflate::stream::gunzip_member(r)))
    } else {
        Box::new(r)
    };
    let header = read_header(&mut r, seg.syntax)?
        .ok_or_else(|| RecordError::NotARecord("end of file".into()))?;
    let len = header.block_len;
    Ok((header, Box::new(BufReader::new(r.take(len)))))
}
