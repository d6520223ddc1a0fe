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
    use crate::error::Error;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let tmp = path.with_extension(format!("json.partial-{}", std::process::id()));
    std::fs::write(&tmp, to_string(value)).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}
