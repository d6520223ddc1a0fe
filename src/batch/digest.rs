//! The ring module: SHA-256, for the names of per-unit reports (a digest of the unit and the
//! options) and the seeded samples (of units, and of contents for the compression
//! estimate's highest levels). Only this file imports ring directly.

/// The lower-case hex SHA-256 of `parts`, each followed by a NUL so that ("ab", "c") and
/// ("a", "bc") differ.
pub fn hex(parts: &[&str]) -> String {
    let parts: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    sha256(&parts).iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `parts`, each followed by a NUL, as bytes: a sort key for seeded samples
/// of contents (the compression estimate's highest levels, `crate::deflate`).
pub fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        ctx.update(part);
        ctx.update(&[0]);
    }
    let mut out = [0; 32];
    out.copy_from_slice(ctx.finish().as_ref());
    out
}
