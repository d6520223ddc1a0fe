//! Any bytes given to the replay server's request parser: it never panics, a complete request
//! never claims more bytes than it was given, and a stream of requests parsed as the server
//! does (whole buffer, then what follows each complete head) parses the same when the bytes
//! arrive split at any point.
#![no_main]

use libfuzzer_sys::fuzz_target;
use webdiet::replay::http::{parse_request, Parsed, Request};

/// Requests at the front of `buf`, one after another, as the server reads a pipelined stream.
fn requests(buf: &[u8]) -> Vec<Request> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Parsed::Complete(req, n) = parse_request(&buf[at..]) {
        assert!(n > 0 && at + n <= buf.len());
        out.push(req);
        at += n;
    }
    out
}

fuzz_target!(|input: (u16, &[u8])| {
    let (split, data) = input;
    let whole = requests(data);
    // The same bytes arriving in two reads: the first read parses what is complete in it, the
    // rest is parsed once the second read is appended, as the server's buffer does.
    let cut = usize::from(split) % (data.len() + 1);
    let mut seen = Vec::new();
    let mut at = 0;
    while let Parsed::Complete(req, n) = parse_request(&data[at..cut]) {
        seen.push(req);
        at += n;
    }
    seen.extend(requests(&data[at..]));
    assert_eq!(whole, seen);
});
