//! The brotli crate (a pure-Rust port of Google's encoder and decoder): the only module that
//! imports it.

use std::io::Write;

/// The encoder's default window (`BROTLI_DEFAULT_WINDOW`, 4 MiB): what the `brotli` tool and
/// servers use.
const WINDOW_BITS: u32 = 22;

/// `data` as a brotli stream at `quality` (0–11).
pub(super) fn compress(data: &[u8], quality: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 4 + 64);
    {
        let mut writer = ::brotli::CompressorWriter::new(&mut out, 4096, quality, WINDOW_BITS);
        writer
            .write_all(data)
            .expect("writing to a Vec cannot fail");
    }
    out
}

/// Decodes a brotli stream, refusing to produce more than `limit` bytes.
pub(super) fn decompress(data: &[u8], limit: u64) -> std::io::Result<Vec<u8>> {
    super::read_limited(::brotli::Decompressor::new(data, 4096), limit)
}
