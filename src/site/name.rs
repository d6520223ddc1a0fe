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
//! [`from_bytes`] is the only way from bytes (a directory listing) to a key, and
//! [`from_url_path`] the only way from a URL's path (a reference in a page, a request, a web
//! archive's capture) to one. [`under`] is the only way from a key to a place on disk below a
//! directory, and it refuses what could leave it.
//!
//! Why names from URLs need a rule of their own: a URL path is percent-encoded, and its
//! decoded bytes are the file name a server would look for (Apache's rule, `caf%E9.gif` →
//! `caf\xe9.gif`). But a decoded `/`, `.` or `..` would then act as path structure, which on
//! the web it never does (`a%2Fb` is one segment; the URL parser has already removed every
//! `..`). So each segment is decoded on its own, and a segment whose decoded bytes would be
//! structure (`.`, `..`, or holding `/` or NUL) keeps its percent-encoded spelling as its name:
//! `%2E%2E%2Fetc` is a file of that name, never a climb out of the tree. Every reader and
//! writer of a site (the archive's materialised tree, the resolver, the server) uses this one
//! rule, so a capture keeps its URL and is found under its safe name. [`under`] checks again at
//! the disk, so that a key made any other way cannot climb out either (docs/archives.md, "Names
//! from archives, and the disk").

use std::fmt::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};

use percent_encoding::percent_decode_str;

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

/// The relative path on disk of a key. To reach a file under a directory, use [`under`], which
/// refuses a key that would leave it; this is for what is not joined to a directory as it is
/// (a symbolic link's target).
pub fn to_path(key: &str) -> PathBuf {
    PathBuf::from(std::ffi::OsString::from_vec(to_bytes(key)))
}

/// A key that cannot name a place below a directory: absolute, empty, or with an empty, `.`
/// or `..` segment or a NUL byte once its escapes are undone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: not a name below the site's directory ({why}); not read or written")]
pub struct UnsafeName {
    pub key: String,
    pub why: &'static str,
}

impl From<UnsafeName> for std::io::Error {
    fn from(e: UnsafeName) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, e)
    }
}

/// The place of a key below `root`: the one way from a site path to the disk. Refuses a key
/// that is absolute or empty, or has an empty, `.` or `..` segment or a NUL byte, so that no
/// key, however it was made, can reach a file outside `root` (links aside: a tree webdiet
/// writes makes its links last, and a tree it reads was crawled without following them).
pub fn under(root: &Path, key: &str) -> Result<PathBuf, UnsafeName> {
    let relative = to_path(key);
    check_relative(&relative).map_err(|why| UnsafeName {
        key: key.to_string(),
        why,
    })?;
    Ok(root.join(relative))
}

/// Whether a relative path stays below the directory it is joined to: every component a plain
/// name (no root, no `.` or `..`, none empty) and no NUL byte. The reason when it does not.
pub fn check_relative(path: &Path) -> Result<(), &'static str> {
    let bytes = path.as_os_str().as_bytes();
    if bytes.is_empty() {
        return Err("empty");
    }
    if bytes.contains(&0) {
        return Err("a NUL byte");
    }
    if bytes.starts_with(b"/") {
        return Err("absolute");
    }
    if bytes
        .split(|&b| b == b'/')
        .any(|s| matches!(s, b"" | b"." | b".."))
    {
        return Err("an empty, `.` or `..` segment");
    }
    // What `Path` itself sees, should its rules ever differ from the bytes'.
    match path.components().all(|c| matches!(c, Component::Normal(_))) {
        true => Ok(()),
        false => Err("a component that is not a plain name"),
    }
}

/// The key a URL's path names (`/a/caf%E9.gif` → `a/caf\xe9.gif`, `/docs/` → `docs/`): each
/// segment percent-decoded to the bytes a server would look for, except a segment whose
/// decoded bytes would act as path structure (`.`, `..`, or holding `/` or NUL), which keeps
/// its spelling as written (`%2E%2E%2Fx` stays `%2E%2E%2Fx`). Empty segments are dropped, as a
/// server collapses `a//b` to `a/b`, and so are literal `.` and `..` (the URL parser resolves
/// them; one left in a path given by hand is not followed). A trailing `/` stays: it names a
/// directory.
pub fn from_url_path(encoded: &str) -> String {
    let mut key = String::with_capacity(encoded.len());
    for segment in encoded.split('/') {
        if matches!(segment, "" | "." | "..") {
            continue;
        }
        let bytes: Vec<u8> = percent_decode_str(segment).collect();
        let structure = matches!(bytes.as_slice(), b"." | b"..") || bytes.contains(&b'/');
        if !key.is_empty() {
            key.push('/');
        }
        match structure || bytes.contains(&0) {
            true => key.push_str(&from_bytes(segment.as_bytes())),
            false => key.push_str(&from_bytes(&bytes)),
        }
    }
    if encoded.ends_with('/') && !key.is_empty() {
        key.push('/');
    }
    key
}

/// The key of a URL's path and query together, as a web archive's capture of `page?q=1` is
/// named (`page?q=1`): the query as written, with `/` in it as `%2F` (so it stays one name)
/// and its other bytes escaped like any key's.
pub fn query_name(path: &str, query: &str) -> String {
    format!(
        "{path}?{}",
        from_bytes(query.replace('/', "%2F").as_bytes())
    )
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
    fn a_url_path_decodes_to_the_name_a_server_would_look_for() {
        assert_eq!(from_url_path("/"), "");
        assert_eq!(from_url_path("/docs/"), "docs/");
        assert_eq!(from_url_path("/a/caf%E9.gif"), r"a/caf\xe9.gif");
        assert_eq!(from_url_path("/a%20b.html"), "a b.html");
        assert_eq!(from_url_path("/caf%C3%A9.gif"), "café.gif");
        assert_eq!(from_url_path("/a//b.html"), "a/b.html");
    }

    #[test]
    fn a_decoded_slash_dot_or_nul_never_acts_as_path_structure() {
        for (url, key) in [
            (
                "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
                "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
            ),
            ("/x/%2e%2e", "x/%2e%2e"),
            ("/%2E", "%2E"),
            ("/a%2F%2Fb.html", "a%2F%2Fb.html"),
            ("/a%2Fb.html", "a%2Fb.html"),
            ("/evil%00.html", "evil%00.html"),
            ("/../../etc/passwd", "etc/passwd"),
            ("/./a/./b", "a/b"),
            // The double encoding decodes once, to text that is a name.
            ("/%252E%252E%252Fetc", "%2E%2E%2Fetc"),
            // A backslash is a byte of the name, escaped in the key, never a separator.
            ("/..%5C..%5Cetc%5Cpasswd", r"..\\..\\etc\\passwd"),
            // An overlong UTF-8 `.` (0xC0 0xAE) is two bytes that are not UTF-8.
            ("/%C0%AE%C0%AE%C0%AFetc", r"\xc0\xae\xc0\xae\xc0\xafetc"),
            // Key escapes spelled in the URL stay text.
            (r"/\x2e\x2e\x2fetc", r"\\x2e\\x2e\\x2fetc"),
        ] {
            let got = from_url_path(url);
            assert_eq!(got, key, "{url}");
            let place = under(Path::new("/root"), &got).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(
                place.parent().map(|p| p.starts_with("/root")),
                Some(true),
                "{url}"
            );
            assert!(place
                .components()
                .skip(1)
                .all(|c| matches!(c, Component::Normal(_))));
        }
    }

    #[test]
    fn under_refuses_every_key_that_would_leave_the_directory() {
        for key in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a/./b",
            "a//b",
            r"\x2e\x2e/x",
            r"a/\x2e\x2e\x2f\x2e\x2e\x2fx",
            r"x\x00y",
            r"\x2fetc\x2fpasswd",
        ] {
            assert!(
                under(Path::new("/root"), key).is_err(),
                "{key:?} was accepted"
            );
        }
        assert_eq!(
            under(Path::new("/root"), r"a/caf\xe9.gif").unwrap(),
            Path::new("/root").join(std::ffi::OsStr::from_bytes(b"a/caf\xe9.gif"))
        );
    }

    #[test]
    fn a_query_is_one_name_with_its_bytes_escaped() {
        assert_eq!(query_name("s.php", "q=1&r=a/b"), "s.php?q=1&r=a%2Fb");
        assert_eq!(
            query_name("s.php", r"a=\x2f..\x2f"),
            r"s.php?a=\\x2f..\\x2f"
        );
        assert!(under(Path::new("/r"), &query_name("s", r"\x2f..\x2f..\x2fetc")).is_ok());
        assert_eq!(to_bytes(&query_name("s", r"\x2f..")), br"s?\x2f..".to_vec());
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
