//! JSON export: serde does the writing; keys come from the report types.

use serde::Serialize;

/// Pretty-printed JSON with a trailing newline.
pub fn to_string<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("report types always serialize");
    text.push('\n');
    text
}

/// Writes a report as JSON to a temporary name next to `path`, then renames it into place.
pub fn write<T: Serialize>(path: &std::path::Path, value: &T) -> crate::error::Result<()> {
    super::write_file(path, to_string(value).as_bytes())
}
