//! The reader against the writer: every record found where it was written, and each kind of
//! damage reported at its record while the records around it are still read.

use std::io::Read;
use std::path::Path;

use super::*;
use crate::archive::record::{self, RecordError, Segment, Syntax};

fn response(_uri: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn write(path: &Path, gzip: bool, blocks: &[(&str, Vec<u8>)]) -> Vec<Written> {
    let mut w = Writer::new(std::fs::File::create(path).unwrap(), gzip);
    blocks
        .iter()
        .map(|(uri, block)| {
            let at = block
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map(|p| p + 4);
            w.warc(&Record {
                rtype: "response",
                uri: Some(uri),
                date: Stamp::parse14("19970315000000").unwrap(),
                content_type: Some("application/http; msgtype=response"),
                fields: Vec::new(),
                block,
                payload_at: at,
            })
            .unwrap()
        })
        .collect()
}

fn segment(path: &Path, syntax: Syntax, gzip: bool) -> Segment {
    Segment {
        path: path.to_path_buf(),
        name: path.display().to_string(),
        filename: "x".into(),
        start: 0,
        len: std::fs::metadata(path).unwrap().len(),
        syntax,
        gzip,
    }
}

type Scanned = Vec<(u64, Result<record::Found, RecordError>)>;

fn scan(seg: &Segment) -> Scanned {
    let mut out = Vec::new();
    record::scan(seg, &mut |at, r| out.push((at, r))).unwrap();
    out
}

#[test]
fn every_record_is_found_where_it_was_written_plain_and_gzipped() {
    let dir = tempfile::tempdir().unwrap();
    for gzip in [false, true] {
        let path = dir.path().join(if gzip { "a.warc.gz" } else { "a.warc" });
        let written = write(
            &path,
            gzip,
            &[
                ("http://h/", response("http://h/", "<p>one</p>")),
                ("http://h/b.html", response("http://h/b.html", "<p>two</p>")),
            ],
        );
        let seg = segment(&path, Syntax::Warc, gzip);
        let found = scan(&seg);
        assert_eq!(found.len(), 2);
        for ((_, f), w) in found.iter().zip(&written) {
            let f = f.as_ref().unwrap();
            assert_eq!((f.offset, f.length), (w.offset, w.length));
            assert_eq!(f.http.as_ref().unwrap().as_ref().unwrap().status, 200);
        }
        let (header, mut block) = record::open_record(&seg, written[1].offset).unwrap();
        assert_eq!(header.uri, "http://h/b.html");
        let mut bytes = Vec::new();
        block.read_to_end(&mut bytes).unwrap();
        assert!(bytes.ends_with(b"<p>two</p>"));
    }
}

#[test]
fn a_truncated_member_is_reported_and_the_next_member_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.warc.gz");
    let written = write(
        &path,
        true,
        &[
            ("http://h/a", response("http://h/a", &"a".repeat(5000))),
            ("http://h/b", response("http://h/b", "b")),
        ],
    );
    let bytes = std::fs::read(&path).unwrap();
    let first = written[0].length as usize;
    // Cut the first member short, keep the second whole.
    let mut cut = bytes[..first / 2].to_vec();
    cut.extend_from_slice(&bytes[first..]);
    std::fs::write(&path, &cut).unwrap();
    let found = scan(&segment(&path, Syntax::Warc, true));
    assert!(matches!(found[0].1, Err(RecordError::Gzip(_))), "{found:?}");
    let last = found.last().unwrap().1.as_ref().unwrap();
    assert_eq!(last.header.uri, "http://h/b");
}

/// One plain record whose WARC Content-Length is replaced by `length`.
fn record_saying(uri: &str, body: &str, length: Option<u64>) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), false);
    let block = response(uri, body);
    w.warc(&Record {
        rtype: "response",
        uri: Some(uri),
        date: Stamp(0),
        content_type: Some("application/http; msgtype=response"),
        fields: Vec::new(),
        block: &block,
        payload_at: None,
    })
    .unwrap();
    let text = String::from_utf8(w.into_inner()).unwrap();
    match length {
        None => text.into_bytes(),
        Some(n) => text
            .replace(
                &format!("Content-Length: {}\r\n\r\nHTTP", block.len()),
                &format!("Content-Length: {n}\r\n\r\nHTTP"),
            )
            .into_bytes(),
    }
}

#[test]
fn lying_lengths_are_errors_of_their_record_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.warc");
    // The first says it is shorter than it is; the last says it runs past the file.
    let mut bytes = record_saying("http://h/a", "aaaa", Some(30));
    bytes.extend(record_saying("http://h/b", "bbbb", None));
    bytes.extend(record_saying("http://h/c", "cccc", Some(99_999)));
    std::fs::write(&path, bytes).unwrap();
    let found = scan(&segment(&path, Syntax::Warc, false));
    let errors: Vec<&RecordError> = found.iter().filter_map(|(_, r)| r.as_ref().err()).collect();
    let uris: Vec<&str> = found
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok())
        .map(|f| f.header.uri.as_str())
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| matches!(e, RecordError::BadEnd { declared: 30 })),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| matches!(
            e,
            RecordError::PastEnd {
                declared: 99_999,
                ..
            }
        )),
        "{errors:?}"
    );
    assert_eq!(uris, ["http://h/b"]);
}

#[test]
fn a_huge_header_block_is_refused_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.warc");
    let mut bytes = b"WARC/1.1\r\nWARC-Type: response\r\n".to_vec();
    while bytes.len() < 3 * record::MAX_HEADER_BLOCK {
        bytes.extend_from_slice(
            b"X-Junk: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n",
        );
    }
    bytes.extend_from_slice(b"Content-Length: 0\r\n\r\n\r\n\r\n");
    let mut w = Writer::new(Vec::new(), false);
    w.warc(&Record {
        rtype: "response",
        uri: Some("http://h/ok"),
        date: Stamp(0),
        content_type: Some("application/http; msgtype=response"),
        fields: Vec::new(),
        block: &response("http://h/ok", "ok"),
        payload_at: None,
    })
    .unwrap();
    bytes.extend_from_slice(&w.into_inner());
    std::fs::write(&path, &bytes).unwrap();
    let found = scan(&segment(&path, Syntax::Warc, false));
    assert!(matches!(found[0].1, Err(RecordError::HeaderTooLarge)));
    assert_eq!(
        found.last().unwrap().1.as_ref().unwrap().header.uri,
        "http://h/ok"
    );
}

#[test]
fn a_whole_file_gzip_is_diagnosed_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("p.warc");
    write(
        &plain,
        false,
        &[
            ("http://h/a", response("http://h/a", "a")),
            ("http://h/b", response("http://h/b", "b")),
        ],
    );
    let path = dir.path().join("w.warc.gz");
    std::fs::write(
        &path,
        crate::deflate::gzip(&std::fs::read(&plain).unwrap(), 6),
    )
    .unwrap();
    let err = record::scan(&segment(&path, Syntax::Warc, true), &mut |_, _| {}).unwrap_err();
    assert!(
        err.to_string().contains("whole file is one gzip stream"),
        "{err}"
    );
}

#[test]
fn arc_records_are_read_as_responses() {
    let dir = tempfile::tempdir().unwrap();
    for gzip in [false, true] {
        let path = dir.path().join(if gzip { "a.arc.gz" } else { "a.arc" });
        let mut w = Writer::new(std::fs::File::create(&path).unwrap(), gzip);
        let date = Stamp::parse14("19970315000000").unwrap();
        let desc = b"1 0 webdiet\nURL IP-address Archive-date Content-type Archive-length\n";
        w.arc("filedesc://a.arc", "0.0.0.0", date, "text/plain", desc)
            .unwrap();
        let (at, _) = w
            .arc(
                "http://h/x.html",
                "127.0.0.1",
                date,
                "text/html",
                &response("", "<p>x</p>"),
            )
            .unwrap();
        drop(w);
        let found = scan(&segment(&path, Syntax::Arc, gzip));
        assert_eq!(found.len(), 2, "{found:?}");
        let f = found[1].1.as_ref().unwrap();
        assert_eq!((f.offset, f.header.uri.as_str()), (at, "http://h/x.html"));
        assert_eq!(f.http.as_ref().unwrap().as_ref().unwrap().status, 200);
    }
}
