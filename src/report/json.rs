//! JSON export: serde does the writing; keys come from the report types.

use serde::Serialize;

/// Pretty-printed JSON with a trailing newline.
pub fn to_string<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("report types always serialize");
    text.push('\n');
    text
}
