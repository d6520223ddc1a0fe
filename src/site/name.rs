//! File names as bytes: the one mapping between a file's name on disk (any bytes but `/` and
//! NUL on Unix) and the site path (`String`) every stage uses as its key.
//!
//! Why a `String` key and not a newtype over bytes: site paths are keys of maps, names in
//! reports, parts of messages and JSON, sliced at `/` and `.`; every stage already does that
//! with strings, and almost every name on the web is UTF-8. So the key stays a `String`, and
//! the bytes that a `String` cannot hold are escaped, *injectively*:
//!
//! - valid UTF-8 stays as it is (`café.gif` is `café.gif`);
//! - a byte that is not part of valid UTF-8 becomes `\xHH`, lower-case hex (Latin-1
//!   `caf\xe9.gif`, the way Rust and Python print byte strings);
//! - a control character (U+0000–U+001F, U+007F) becomes `\xHH` too, so that no file name can
//!   move the cursor or end a line of the terminal it is printed on;
//! - and the escape character itself, `\`, becomes `\\`.
//!
//! Because `\` is always escaped, two different names can never give the same key: no
//! collision is possible, so none needs to be detected (a file really named `caf\xe9.gif`, with
//! a backslash, is `caf\\xe9.gif`; a file named with U+FFFD, the lossy form of Latin-1 `é`, is
//! `caf\u{FFFD}.gif`, a different key). The escapes hold only ASCII letters, digits and `\`,
//! never `/` or `.`, so a key is still split into directories at `/` and into stem and
//! extension at `.`, and appending ASCII (`.png`, `.gz`) to a key gives the key of the
//! appended bytes. Keys are what people see: problems, reports and `report.json` print them as
//! they are, escaped once.
//!
//! [`to_path`] is the only way from a key to the disk, and [`from_bytes`] the only way from
//! bytes (a directory listing, a percent-decoded URL path) to a key.

use std::fmt::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// The site path (key) of a name given as bytes, `/`-separated.
pub fn from_bytes(bytes: &[u8]) -> String {
    let mut key = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => key.push_str("\\\\"),
                c if c.is_ascii_control() => escape(&mut key, c as u8),
                c => key.push(c),
            }
        }
        for &b in chunk.invalid() {
            escape(&mut key, b);
        }
    }
    key
}

fn escape(key: &mut String, byte: u8) {
    let _ = write!(key, "\\x{byte:02x}");
}

/// The bytes a key stands for: the inverse of [`from_bytes`]. A `\` that starts no escape (in
/// a key made by hand) stands for itself.
pub fn to_bytes(key: &str) -> Vec<u8> {
    let bytes = key.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if bytes.get(i + 1) == Some(&b'x') {
                if let Some(byte) = bytes
                    .get(i + 2..i + 4)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    out.push(byte);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// The relative path on disk of a key: join it to a directory to reach the file.
pub fn to_path(key: &str) -> PathBuf {
    PathBuf::from(std::ffi::OsString::from_vec(to_bytes(key)))
}

/// The key of a relative path on disk (`a/b.html` → `a/b.html`, `/`-separated).
pub fn from_path(path: &Path) -> String {
    from_bytes(path.as_os_str().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_names_are_their_own_key() {
        for name in [
            "index.html",
            "my pics/café.gif",
            "日本/ページ.html",
            "a b%20c.gif",
        ] {
            assert_eq!(from_bytes(name.as_bytes()), name);
            assert_eq!(to_bytes(name), name.as_bytes());
        }
    }

    #[test]
    fn latin1_bytes_are_escaped_readably_and_come_back() {
        let key = from_bytes(b"r\xe9p/caf\xe9.gif");
        assert_eq!(key, r"r\xe9p/caf\xe9.gif");
        assert_eq!(to_bytes(&key), b"r\xe9p/caf\xe9.gif");
        assert_eq!(
            to_path(&key).as_os_str().as_bytes(),
            b"r\xe9p/caf\xe9.gif".as_slice()
        );
    }

    #[test]
    fn names_that_a_lossy_conversion_merges_keep_different_keys() {
        let names: [&[u8]; 6] = [
            b"caf\xe9.gif",
            b"caf\xe8.gif",
            "caf\u{fffd}.gif".as_bytes(),
            br"caf\xe9.gif",
            br"caf\\xe9.gif",
            b"caf\xc3\xa9.gif",
        ];
        let keys: std::collections::BTreeSet<String> =
            names.iter().map(|n| from_bytes(n)).collect();
        assert_eq!(keys.len(), names.len(), "{keys:?}");
        for name in names {
            assert_eq!(to_bytes(&from_bytes(name)), name);
        }
    }

    #[test]
    fn control_characters_never_reach_a_terminal() {
        let key = from_bytes(b"a\nb\x1b[31m.html");
        assert_eq!(key, r"a\x0ab\x1b[31m.html");
        assert!(!key.chars().any(|c| c.is_control()));
        assert_eq!(to_bytes(&key), b"a\nb\x1b[31m.html");
    }

    #[test]
    fn every_byte_string_survives_the_round_trip() {
        // Every pair of bytes, after a prefix: covers split UTF-8 sequences next to escapes.
        for a in 0..=255u8 {
            for b in [0u8, b'\\', b'x', b'e', 0x80, 0xa9, 0xc3, 0xe9, 0xff] {
                let name = [b'n', a, b, b'\\', a];
                assert_eq!(to_bytes(&from_bytes(&name)), name);
            }
        }
    }

    #[test]
    fn appending_ascii_to_a_key_is_the_key_of_the_appended_bytes() {
        for name in [b"caf\xc3".as_slice(), b"caf\xe9", b"x\\"] {
            let mut bytes = name.to_vec();
            bytes.extend_from_slice(b".png");
            assert_eq!(format!("{}.png", from_bytes(name)), from_bytes(&bytes));
        }
    }
}
