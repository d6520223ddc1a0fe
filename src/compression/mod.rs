//! The content codings beside deflate that today's servers and browsers use: brotli and zstd,
//! each behind its own module (`brotli`, `zstd`, one outside library each). deflate and gzip
//! stay in [`crate::deflate`] (flate2).
//!
//! Levels, stated once here and used by the estimates, `--precompress` and the replay:
//! - brotli 5 is what a server compresses on the fly (nginx's ngx_brotli defaults to 6, most
//!   CDNs use 4–5), brotli 11 what a site ships pre-compressed (`brotli` without options);
//! - zstd 3 is zstd's own default and what servers use on the fly (Caddy, nginx's zstd
//!   module), zstd 19 the highest level without `--ultra`, for pre-compressed files.

mod brotli;
mod zstd;

use serde::Serialize;

/// brotli's on-the-fly level.
pub const BROTLI_FAST: u32 = 5;
/// brotli's pre-compressed level (its highest).
pub const BROTLI_BEST: u32 = 11;
/// zstd's on-the-fly level (its default).
pub const ZSTD_FAST: i32 = 3;
/// zstd's pre-compressed level (the highest without `--ultra`).
pub const ZSTD_BEST: i32 = 19;

/// A content coding beyond deflate and gzip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Coding {
    /// `Content-Encoding: br` (RFC 7932).
    Brotli,
    /// `Content-Encoding: zstd` (RFC 8878).
    Zstd,
}

impl Coding {
    /// The token in `Content-Encoding` and `Accept-Encoding`.
    pub fn token(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Zstd => "zstd",
        }
    }

    /// The coding of a `Content-Encoding` token.
    pub fn from_token(token: &str) -> Option<Coding> {
        match token {
            "br" => Some(Coding::Brotli),
            "zstd" => Some(Coding::Zstd),
            _ => None,
        }
    }

    /// The extension of a pre-compressed file (`.br`, `.zst`), as nginx's `brotli_static` and
    /// `zstd_static` look for it.
    pub fn extension(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Zstd => "zst",
        }
    }

    /// `data` compressed on the fly, at the level a server uses.
    pub fn fast(self, data: &[u8]) -> Vec<u8> {
        match self {
            Coding::Brotli => brotli::compress(data, BROTLI_FAST),
            Coding::Zstd => zstd::compress(data, ZSTD_FAST),
        }
    }

    /// `data` compressed for a pre-compressed file, at the highest usual level.
    pub fn best(self, data: &[u8]) -> Vec<u8> {
        match self {
            Coding::Brotli => brotli::compress(data, BROTLI_BEST),
            Coding::Zstd => zstd::compress(data, ZSTD_BEST),
        }
    }

    /// Decodes `data`, refusing to produce more than `limit` bytes.
    pub fn decode(self, data: &[u8], limit: u64) -> std::io::Result<Vec<u8>> {
        match self {
            Coding::Brotli => brotli::decompress(data, limit),
            Coding::Zstd => zstd::decompress(data, limit),
        }
    }
}

/// Reads at most `limit` bytes from `reader`, or fails: the shared guard against bombs.
fn read_limited(reader: impl std::io::Read, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    reader.take(limit + 1).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(std::io::Error::other("decoded body exceeds the limit"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text() -> Vec<u8> {
        (0..300)
            .flat_map(|i| format!("<li><a href=\"page{i}.html\">Page {i}</a></li>\n").into_bytes())
            .collect()
    }

    #[test]
    fn every_coding_round_trips_at_both_levels() {
        let page = text();
        for coding in [Coding::Brotli, Coding::Zstd] {
            let fast = coding.fast(&page);
            let best = coding.best(&page);
            assert!(fast.len() < page.len() / 4, "{coding:?}: {}", fast.len());
            assert!(best.len() < page.len() / 4, "{coding:?}: {}", best.len());
            for body in [fast, best] {
                assert_eq!(coding.decode(&body, 1 << 20).unwrap(), page, "{coding:?}");
            }
            assert_eq!(Coding::from_token(coding.token()), Some(coding));
        }
    }

    #[test]
    fn decoding_refuses_bombs_and_garbage() {
        let zeros = vec![0u8; 1 << 20];
        for coding in [Coding::Brotli, Coding::Zstd] {
            assert!(
                coding.decode(&coding.best(&zeros), 1000).is_err(),
                "{coding:?}"
            );
            assert!(
                coding.decode(b"not compressed at all", 1000).is_err(),
                "{coding:?}"
            );
        }
    }
}
