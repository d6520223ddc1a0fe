//! The document-size study's table on the terminal (`webdiet replay --document-sizes`): median
//! durations per size and variant, with each variant's connect time.

use std::fmt::Write;

use crate::replay::study::{Study, Variant};
use crate::report::format::size_kib as size_text;

/// Median duration (request write → last byte) per size and variant, with each HTTPS
/// variant's connect time beside the table.
pub fn table(study: &Study) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "document sizes — the 1998 HTTP/HTTPS study's timer (request write → last byte), median of \
         {} run(s), ms; link: {}, method {}, MSS {}, HTTPS with {}",
        study.runs, study.link, study.method, study.mss, study.cipher
    );
    let _ = write!(out, "  {:>8}", "size");
    for v in Variant::ALL {
        let _ = write!(out, " {:>15}", v.as_str());
    }
    let _ = writeln!(out);
    let mut sizes: Vec<u64> = study.rows.iter().map(|r| r.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for size in &sizes {
        let _ = write!(out, "  {:>8}", size_text(*size));
        for v in Variant::ALL {
            let cell = study
                .rows
                .iter()
                .find(|r| r.size == *size && r.variant == v.as_str())
                .map_or("-".to_string(), |r| format!("{:.3}", r.duration_ms.median));
            let _ = write!(out, " {cell:>15}");
        }
        let _ = writeln!(out);
    }
    let _ = write!(out, "  {:>8}", "connect");
    for v in Variant::ALL {
        let connects: Vec<f64> = study
            .rows
            .iter()
            .filter(|r| r.variant == v.as_str())
            .map(|r| r.connect_ms.median)
            .collect();
        let mut sorted = connects.clone();
        sorted.sort_by(f64::total_cmp);
        let cell = sorted
            .get(sorted.len().saturating_sub(1) / 2)
            .map_or("-".to_string(), |m| format!("{m:.3}"));
        let _ = write!(out, " {cell:>15}");
    }
    let _ = writeln!(
        out,
        "\n  (connect: SYN until the request could be written, TCP's and TLS's handshakes; the \
         median over the sizes)"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::study;

    #[test]
    fn the_table_has_a_line_per_size_and_a_column_per_variant() {
        let text = table(&study());
        assert!(text.contains("link: loopback"));
        assert!(text.lines().any(|l| l.trim_start().starts_with("20k")));
        assert!(text.contains("tls1.2-resumed"));
        assert_eq!(text.lines().filter(|l| l.contains("k  ")).count(), 3);
    }
}
