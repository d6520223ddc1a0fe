//! The zstd crate (bindings to the reference C library, built with cc): the only module that
//! imports it.

/// `data` as one zstd frame at `level`, its size recorded in the frame header.
pub(super) fn compress(data: &[u8], level: i32) -> Vec<u8> {
    ::zstd::bulk::compress(data, level).expect("compressing into memory cannot fail")
}

/// Decodes zstd frames, refusing to produce more than `limit` bytes.
pub(super) fn decompress(data: &[u8], limit: u64) -> std::io::Result<Vec<u8>> {
    super::read_limited(::zstd::stream::read::Decoder::new(data)?, limit)
}
