//! Exporters: each turns a stage's result (plain serde data) into one output format.

mod figures;
pub mod html;
pub mod json;
pub mod markdown;
mod model;
pub mod opportunities;
pub mod replay;
pub mod study;
pub mod summary;
pub mod terminal;
pub mod tls;

pub use model::{
    BudgetResult, CompressionReport, ImageRow, ImagesTotal, InventorySummary, Report,
    RewriteSummary, SiteInfo, Tool, SCHEMA_VERSION,
};

/// Writes a report file through a temporary name and a rename, so that no reader ever sees
/// half of it; creates the directory.
pub fn write_file(path: &std::path::Path, bytes: &[u8]) -> crate::error::Result<()> {
    use crate::error::Error;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(42919), "42,919");
        assert_eq!(super::thousands(1234567), "1,234,567");
    }
}
