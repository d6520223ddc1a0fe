//! The ring module: every digest webdiet computes, and the only file that imports ring.
//! - archives: WARC's `sha1:` + base32 (payload and block digests, the CDXJ `digest`) and
//!   WACZ's `sha256:` + hex (datapackage.json), streamed ([`Running`]);
//! - batch: the names of per-unit reports (a digest of the unit and the options) and the
//!   seeded samples (of units, and of contents for the compression estimate's highest
//!   levels) ([`hex`], [`sha256`]); the fingerprints of findings.

use std::io::{self, Read};

use ring::digest::{Context, SHA1_FOR_LEGACY_USE_ONLY, SHA256};

/// A running digest fed as bytes go by (a `Write` sink).
pub struct Running(Context);

impl Running {
    pub fn sha1() -> Self {
        Running(Context::new(&SHA1_FOR_LEGACY_USE_ONLY))
    }

    pub fn sha256() -> Self {
        Running(Context::new(&SHA256))
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// `sha1:BASE32` (WARC's form).
    pub fn warc(self) -> String {
        format!(
            "sha1:{}",
            data_encoding::BASE32.encode(self.0.finish().as_ref())
        )
    }

    /// Lower-case hex.
    pub fn hex(self) -> String {
        self.0
            .finish()
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

impl io::Write for Running {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `sha1:BASE32` of some bytes.
pub fn sha1_warc(bytes: &[u8]) -> String {
    let mut d = Running::sha1();
    d.update(bytes);
    d.warc()
}

/// SHA-256 (hex) and length of everything `r` yields.
pub fn sha256_hex(mut r: impl Read) -> io::Result<(String, u64)> {
    let mut d = Running::sha256();
    let n = io::copy(&mut r, &mut d)?;
    Ok((d.hex(), n))
}

/// Whether two WARC digests name the same bytes: the algorithm prefix compared without case,
/// base32 with or without padding.
pub fn same(a: &str, b: &str) -> bool {
    let norm = |d: &str| d.trim().trim_end_matches('=').to_ascii_uppercase();
    let (a, b) = (norm(a), norm(b));
    let strip = |d: &str| d.strip_prefix("SHA1:").unwrap_or(d).to_string();
    strip(&a) == strip(&b)
}

/// The lower-case hex SHA-256 of `parts`, each followed by a NUL so that ("ab", "c") and
/// ("a", "bc") differ.
pub fn hex(parts: &[&str]) -> String {
    let parts: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    sha256(&parts).iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `parts`, each followed by a NUL, as bytes: a sort key for seeded samples
/// of contents (the compression estimate's highest levels, `crate::deflate`).
pub fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut ctx = Context::new(&SHA256);
    for part in parts {
        ctx.update(part);
        ctx.update(&[0]);
    }
    let mut out = [0; 32];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_have_the_forms_archives_write() {
        // `printf abc | sha1sum` = a9993e36…, whose base32 is VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5.
        assert_eq!(sha1_warc(b"abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
        assert!(same(
            "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5",
            "VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"
        ));
        let (hex, n) = sha256_hex(&b"abc"[..]).unwrap();
        assert_eq!(n, 3);
        assert!(hex.starts_with("ba7816bf"));
    }
}
