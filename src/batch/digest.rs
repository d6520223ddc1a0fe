//! The ring module: SHA-256, for the names of per-unit reports (a digest of the unit and the
//! options) and the seeded sample. Only this file imports ring directly.

/// The lower-case hex SHA-256 of `parts`, each followed by a NUL so that ("ab", "c") and
/// ("a", "bc") differ.
pub fn hex(parts: &[&str]) -> String {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        ctx.update(part.as_bytes());
        ctx.update(&[0]);
    }
    ctx.finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
