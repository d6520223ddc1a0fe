//! Exporters: each turns a stage's result (plain serde data) into one output format.

pub mod archive;
pub mod browser;
pub(crate) mod figures;
pub mod headers;
pub mod html;
pub mod json;
pub mod markdown;
mod model;
pub mod opportunities;
pub mod replay;
pub mod study;
pub mod summary;
pub mod sweeps;
pub mod terminal;
pub mod tls;

pub use model::{
    BudgetResult, CompressionReport, ImageFormat, ImageRow, ImagesTotal, InventorySummary, Report,
    RewriteSummary, SiteInfo, Tool, SCHEMA_VERSION,
};

/// How much the terminal output says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verbosity {
    Quiet,
    #[default]
    Normal,
    Verbose,
}

/// How the text exporters write: colours, and how much detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextStyle {
    /// ANSI colours. Default: off.
    pub color: bool,
    pub verbosity: Verbosity,
}

/// The distinct values of `key` over `items`, in the order they first appear.
pub fn first_seen<'a, T>(items: &'a [T], key: impl Fn(&'a T) -> &'a str) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for item in items {
        let k = key(item);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
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
