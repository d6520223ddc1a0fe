//! HTTP/1.x framing for the replay's server and client, on top of httparse's incremental
//! parser: `Complete(n)` says where the next pipelined message starts, `Partial` says read more.
//! Only what the experiment needs: GET/HEAD, Content-Length bodies, validators, encodings.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Request headers the server accepts at most (count).
pub const MAX_HEADERS: usize = 32;

/// A parsed request: only the parts the server uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    pub target: String,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub minor: u8,
    pub connection_close: bool,
    pub keep_alive: bool,
    pub if_none_match: Option<String>,
    pub if_modified_since: Option<String>,
    pub accept_deflate: bool,
    pub accept_gzip: bool,
}

/// What [`parse_request`] found at the front of a buffer.
#[derive(Debug)]
pub enum Parsed<T> {
    /// A whole message head of this many bytes.
    Complete(T, usize),
    /// More bytes are needed.
    Partial,
    /// Not HTTP; the reason.
    Invalid(String),
}

/// Parses the request at the front of `buf` (requests have no body in this experiment).
pub fn parse_request(buf: &[u8]) -> Parsed<Request> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let n = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Parsed::Partial,
        Err(e) => return Parsed::Invalid(e.to_string()),
    };
    let mut out = Request {
        method: req.method.unwrap_or_default().to_string(),
        target: req.path.unwrap_or_default().to_string(),
        minor: req.version.unwrap_or(0),
        connection_close: false,
        keep_alive: false,
        if_none_match: None,
        if_modified_since: None,
        accept_deflate: false,
        accept_gzip: false,
    };
    for h in req.headers.iter() {
        let value = String::from_utf8_lossy(h.value).trim().to_string();
        let name = h.name.to_ascii_lowercase();
        match name.as_str() {
            "connection" => {
                let v = value.to_ascii_lowercase();
                out.connection_close |= v.split(',').any(|t| t.trim() == "close");
                out.keep_alive |= v.split(',').any(|t| t.trim() == "keep-alive");
            }
            "if-none-match" => out.if_none_match = Some(value),
            "if-modified-since" => out.if_modified_since = Some(value),
            "accept-encoding" => {
                for coding in value.to_ascii_lowercase().split(',') {
                    let mut parts = coding.split(';');
                    let name = parts.next().unwrap_or("").trim();
                    let refused = parts.any(|p| {
                        let p = p.trim();
                        p.strip_prefix("q=")
                            .is_some_and(|q| q.trim().parse::<f32>() == Ok(0.0))
                    });
                    match name {
                        "deflate" => out.accept_deflate = !refused,
                        "gzip" | "x-gzip" => out.accept_gzip = !refused,
                        _ => {}
                    }
                }
            }
            "content-length" | "transfer-encoding" if value != "0" => {
                return Parsed::Invalid("request bodies are not accepted".into())
            }
            _ => {}
        }
    }
    Parsed::Complete(out, n)
}

/// The head of a response as the client needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseHead {
    pub status: u16,
    pub content_length: Option<u64>,
    pub content_encoding: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub connection_close: bool,
}

/// Parses the response head at the front of `buf`.
pub fn parse_response(buf: &[u8]) -> Parsed<ResponseHead> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut res = httparse::Response::new(&mut headers);
    let n = match res.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Parsed::Partial,
        Err(e) => return Parsed::Invalid(e.to_string()),
    };
    let mut out = ResponseHead {
        status: res.code.unwrap_or(0),
        content_length: None,
        content_encoding: None,
        etag: None,
        last_modified: None,
        connection_close: res.version == Some(0),
    };
    for h in res.headers.iter() {
        let value = String::from_utf8_lossy(h.value).trim().to_string();
        match h.name.to_ascii_lowercase().as_str() {
            "content-length" => match value.parse() {
                Ok(len) => out.content_length = Some(len),
                Err(_) => return Parsed::Invalid(format!("bad Content-Length {value:?}")),
            },
            "content-encoding" => out.content_encoding = Some(value.to_ascii_lowercase()),
            "etag" => out.etag = Some(value),
            "last-modified" => out.last_modified = Some(value),
            "connection" => {
                let v = value.to_ascii_lowercase();
                if v.split(',').any(|t| t.trim() == "close") {
                    out.connection_close = true;
                } else if v.split(',').any(|t| t.trim() == "keep-alive") {
                    out.connection_close = false;
                }
            }
            _ => {}
        }
    }
    Parsed::Complete(out, n)
}

pub use crate::site::is_text;

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the HTTP date format.
pub fn http_date(time: SystemTime) -> String {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs();
    crate::archive::Stamp(secs as i64).to_http()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_follow_rfc_9110() {
        let t = UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(http_date(t), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(http_date(UNIX_EPOCH), "Thu, 01 Jan 1970 00:00:00 GMT");
    }

    #[test]
    fn pipelined_requests_are_parsed_one_at_a_time() {
        let two = b"GET /a HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, deflate\r\n\r\nGET /b HTTP/1.0\r\n\r\nGE";
        let Parsed::Complete(first, n) = parse_request(two) else {
            panic!()
        };
        assert_eq!((first.target.as_str(), first.minor), ("/a", 1));
        assert!(first.accept_deflate && first.accept_gzip);
        let Parsed::Complete(second, m) = parse_request(&two[n..]) else {
            panic!()
        };
        assert_eq!((second.target.as_str(), second.minor), ("/b", 0));
        assert!(matches!(parse_request(&two[n + m..]), Parsed::Partial));
        assert!(matches!(
            parse_request(b"\x16\x03\x01 hello\r\n\r\n"),
            Parsed::Invalid(_)
        ));
    }

    #[test]
    fn refused_codings_are_not_accepted() {
        let Parsed::Complete(req, _) =
            parse_request(b"GET / HTTP/1.1\r\nAccept-Encoding: deflate;q=0, gzip\r\n\r\n")
        else {
            panic!()
        };
        assert!(!req.accept_deflate && req.accept_gzip);
    }
}
