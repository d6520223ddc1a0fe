//! JSON export: serde does the writing; keys come from the report types.

use serde::Serialize;

/// Pretty-printed JSON with a trailing newline.
pub fn to_string<T: Serialize>(value: &T) -> String {
    crate::report::format::json(value)
}
