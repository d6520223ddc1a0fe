//! The ring module: every digest webdiet computes, and the only file that imports ring.
//! - archives: WARC's `sha1:` + base32 (payload and block digests, the CDXJ `digest`) and
//!   WACZ's `sha256:` + hex (datapackage.json), streamed ([`Running`]); and the spellings of
//!   one digest that archives write (`sha1:` in base32 or in hex, as warcprox writes it;
//!   `sha256:` likewise) read as the same digest ([`same`], [`canonical`]);
//! - batch: the names of per-unit reports (a digest of the unit and the options) and the
//!   seeded samples (of units, and of contents for the compression estimate's highest
//!   levels) ([`hex`], [`sha256`]); the fingerprints of findings.

use std::io::{self, Read};

use ring::digest::{Context, SHA1_FOR_LEGACY_USE_ONLY, SHA256};

/// The digest algorithms webdiet computes (and so can check an archive's digests with).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Sha1,
    Sha256,
}

impl Algorithm {
    /// `sha1`, `sha-1`, `SHA256`, … (WARC names algorithms as OpenSSL does, case aside).
    pub fn named(name: &str) -> Option<Algorithm> {
        match name.trim().to_ascii_lowercase().replace('-', "").as_str() {
            "sha1" => Some(Algorithm::Sha1),
            "sha256" => Some(Algorithm::Sha256),
            _ => None,
        }
    }

    /// The name WARC labels it with.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Sha1 => "sha1",
            Algorithm::Sha256 => "sha256",
        }
    }

    /// Bytes of a digest.
    fn len(self) -> usize {
        match self {
            Algorithm::Sha1 => 20,
            Algorithm::Sha256 => 32,
        }
    }
}

/// A running digest fed as bytes go by (a `Write` sink).
pub struct Running(Context, Algorithm);

impl Running {
    pub fn sha1() -> Self {
        Running::of(Algorithm::Sha1)
    }

    pub fn sha256() -> Self {
        Running::of(Algorithm::Sha256)
    }

    pub fn of(algorithm: Algorithm) -> Self {
        let ring = match algorithm {
            Algorithm::Sha1 => &SHA1_FOR_LEGACY_USE_ONLY,
            Algorithm::Sha256 => &SHA256,
        };
        Running(Context::new(ring), algorithm)
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// `sha1:BASE32` (WARC's form; `sha256:BASE32` for SHA-256).
    pub fn warc(self) -> String {
        format!(
            "{}:{}",
            self.1.name(),
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

/// A WARC digest read: its algorithm and its bytes. The value may be base32 (WARC's own form,
/// any case, with or without padding) or hex (warcprox writes `sha1:` + 40 hex digits), told
/// apart by length as warcio tells them; without a label, the length says which algorithm.
/// `None` for an algorithm webdiet does not compute or a value that is neither.
pub fn parse(digest: &str) -> Option<(Algorithm, Vec<u8>)> {
    let digest = digest.trim();
    let (label, value) = match digest.split_once(':') {
        Some((label, value)) => (Some(Algorithm::named(label)?), value.trim()),
        None => (None, digest),
    };
    let algorithms = match label {
        Some(a) => vec![a],
        None => vec![Algorithm::Sha1, Algorithm::Sha256],
    };
    algorithms.into_iter().find_map(|a| {
        let bytes = if value.len() == 2 * a.len() {
            data_encoding::HEXLOWER_PERMISSIVE
                .decode(value.as_bytes())
                .ok()?
        } else {
            let base32 = value.trim_end_matches('=').to_ascii_uppercase();
            data_encoding::BASE32_NOPAD.decode(base32.as_bytes()).ok()?
        };
        (bytes.len() == a.len()).then_some((a, bytes))
    })
}

/// One spelling for every spelling of a digest (`sha1:` + upper-case base32 without padding),
/// so that hex and base32 spellings of one digest are one key; a digest that does not parse
/// keeps its own spelling, upper-cased, without padding or a `sha1:` label.
pub fn canonical(digest: &str) -> String {
    match parse(digest) {
        Some((a, bytes)) => format!(
            "{}:{}",
            a.name(),
            data_encoding::BASE32_NOPAD.encode(&bytes)
        ),
        None => {
            let d = digest.trim().trim_end_matches('=').to_ascii_uppercase();
            d.strip_prefix("SHA1:").unwrap_or(&d).to_string()
        }
    }
}

/// Whether two WARC digests name the same bytes: the same algorithm and value, whether
/// spelt in base32 (with or without padding, any case) or in hex, with or without a label.
pub fn same(a: &str, b: &str) -> bool {
    canonical(a) == canonical(b)
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

    #[test]
    fn hex_and_base32_spellings_of_one_digest_are_the_same_digest() {
        // `printf abc | sha1sum`, as warcprox writes it, and as WARC writes it.
        let base32 = "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5";
        let hex = "sha1:a9993e364706816aba3e25717850c26c9cd0d89d";
        assert!(same(hex, base32));
        assert!(same(
            &hex.to_ascii_uppercase(),
            "vgmt4nsha2awvor6evyxqugcnsonbwe5"
        ));
        assert!(same(
            "SHA-1:a9993e364706816aba3e25717850c26c9cd0d89d",
            base32
        ));
        assert_eq!(canonical(hex), canonical(base32));
        assert!(!same(
            "sha1:a9993e364706816aba3e25717850c26c9cd0d89e",
            base32
        ));
        // SHA-256, in hex and in base32 (padded as Python's base64.b32encode pads it).
        let mut d = Running::sha256();
        d.update(b"abc");
        let warc = d.warc();
        assert_eq!(
            warc,
            "sha256:XJ4BNP4PAHH6UQKBIDPF3LRCEOYAGYNDSYLXVHFUCD7WD4QACWWQ===="
        );
        let hex = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert!(same(&warc, hex));
        assert!(same(warc.trim_end_matches('='), hex));
        // Another algorithm is another digest, even of the same bytes' spelling.
        assert!(!same(&warc, base32));
        assert_eq!(parse("md5:900150983cd24fb0d6963f7d28e17f72"), None);
    }
}
