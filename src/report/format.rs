//! How the reports write numbers: counts with separators, signed differences, percentages of
//! change, times, sizes, and the escaping of text for HTML and SVG. One file, so that every
//! renderer writes the same figure the same way.
//!
//! Units are in the names: a function taking milliseconds says `ms`, one taking bytes says
//! `bytes`. A change is always written from a figure before to a figure after, as the share
//! of before (`-16.9%`); a difference keeps its sign (`+172`, `-5`).

use std::fmt::Write;

use crate::replay::Spread;

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1234567` → `1,234,567`, `-5` → `-5`.
pub fn signed(n: i64) -> String {
    if n < 0 {
        format!("-{}", thousands(n.unsigned_abs()))
    } else {
        thousands(n as u64)
    }
}

/// A difference with its sign: `+1,234`, `-5`, `0`.
pub fn plus(n: i64) -> String {
    if n > 0 {
        format!("+{}", signed(n))
    } else {
        signed(n)
    }
}

/// Whole numbers with separators, others with two decimals (budget limits and values).
pub fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.is_finite() && x.abs() < 1e15 {
        signed(x as i64)
    } else {
        format!("{x:.2}")
    }
}

/// `100 × (after − before) / before`, `None` when `before` is 0.
pub fn change_pct(before: f64, after: f64) -> Option<f64> {
    (before != 0.0).then(|| 100.0 * (after - before) / before)
}

/// The change from `before` to `after` as a share of `before`: `-16.9%`, `+0.2%`, `±0.0%`
/// when nothing changed, `—` when there is no base.
pub fn change(before: f64, after: f64) -> String {
    match change_pct(before, after) {
        Some(p) if format!("{:.1}", p.abs()) == "0.0" => "±0.0%".to_string(),
        Some(p) => format!("{p:+.1}%"),
        None => "—".to_string(),
    }
}

/// The change between two measured figures, or `no measurable change` when their ranges over
/// the runs overlap.
pub fn measured_change(before: &Spread, after: &Spread) -> String {
    if before.overlaps(after) {
        "no measurable change".to_string()
    } else {
        change(before.median, after.median)
    }
}

/// A time given in milliseconds, in words: `840 ms`, `1.38 s`, `65.1 s`.
pub fn ms(ms: f64) -> String {
    let a = ms.abs();
    if a < 1000.0 {
        format!("{ms:.0} ms")
    } else if a < 10_000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// A simulated time: `380 ms`, or over several loss seeds `380 ms (352–410 over 20 seeds)`,
/// the interquartile range.
pub fn simulated_ms(s: &Spread) -> String {
    if s.runs <= 1 {
        return ms(s.median);
    }
    format!(
        "{} ({:.0}–{:.0} over {} seeds)",
        ms(s.median),
        s.q1,
        s.q3,
        s.runs
    )
}

/// A difference in time with its sign: `+12 ms`, `-1.25 s`, `0 ms`.
pub fn plus_ms(ms: f64) -> String {
    let sign = if ms.round() > 0.0 {
        "+"
    } else if ms.round() < 0.0 {
        "-"
    } else {
        ""
    };
    format!("{sign}{}", self::ms(ms.abs()))
}

/// A measured figure as `median (low–high)`, the range the report uses for it.
pub fn spread(s: &Spread, digits: usize) -> String {
    let (lo, hi) = s.range();
    format!("{:.digits$} ({lo:.digits$}–{hi:.digits$})", s.median)
}

/// A measured time with its range over the runs: `1.38 s (1.20–1.52)`, marked `≥` with the
/// count when `timed_out` of the `runs` gave up (they count at the time they were abandoned).
pub fn time_spread(spread: &Spread, timed_out: usize, runs: usize) -> String {
    if spread.runs == 0 {
        return format!("timed out ({timed_out}/{runs})");
    }
    let (lo, hi) = spread.range();
    let unit = |v: f64| {
        if spread.max < 1000.0 {
            format!("{v:.0}")
        } else {
            format!("{:.2}", v / 1000.0)
        }
    };
    let mut text = format!(
        "{}{} ({}–{})",
        if timed_out > 0 { "≥" } else { "" },
        ms(spread.median),
        unit(lo),
        unit(hi)
    );
    if timed_out > 0 {
        let _ = write!(text, " {timed_out}/{runs} timed out");
    }
    text
}

/// `1234567` → `1.2 MB`, `2048` → `2.0 kB`, `12` → `12 B` (decimal units).
pub fn short_bytes(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1} MB", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.1} kB", v / 1e3)
    } else {
        format!("{v:.0} B")
    }
}

/// A size as the 1998 study wrote it: `20k` for whole KiB, bytes otherwise.
pub fn size_kib(size: u64) -> String {
    if size.is_multiple_of(1024) {
        format!("{}k", size / 1024)
    } else {
        thousands(size)
    }
}

/// A file of the site as a path from the directory webdiet ran in (in CI, the repository's
/// root): the site directory as given joined with the site path, without a leading `./`.
pub fn repo_path(site: &str, path: &str) -> String {
    let joined = format!("{}/{path}", site.trim_end_matches('/'));
    joined.trim_start_matches("./").to_string()
}

/// Pretty-printed JSON with a trailing newline: serde writes it, the types give the keys.
pub fn json<T: serde::Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("report types always serialize");
    text.push('\n');
    text
}

/// `""` for one, `"s"` otherwise.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Escapes text for HTML and SVG content and quoted attribute values. A control character
/// (from a file name: a bell, an ANSI escape) is shown as its bytes, `\x1B`, as on stderr
/// ([`crate::error::shown`]); newlines and tabs stay.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {
                for byte in c.to_string().bytes() {
                    let _ = write!(out, "\\x{byte:02X}");
                }
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(42919), "42,919");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn signed_numbers_and_differences_keep_their_sign() {
        assert_eq!(signed(-1234), "-1,234");
        assert_eq!(signed(1234), "1,234");
        assert_eq!(plus(172), "+172");
        assert_eq!(plus(-5), "-5");
        assert_eq!(plus(0), "0");
    }

    #[test]
    fn a_change_is_a_share_of_before_and_never_divides_by_zero() {
        assert_eq!(change(200.0, 150.0), "-25.0%");
        assert_eq!(change(100.0, 100.2), "+0.2%");
        assert_eq!(change(42.0, 42.0), "±0.0%");
        assert_eq!(change(100_000.0, 100_001.0), "±0.0%", "rounds to nothing");
        assert_eq!(change(0.0, 5.0), "—");
        assert_eq!(change_pct(0.0, 5.0), None);
    }

    #[test]
    fn overlapping_ranges_are_no_measurable_change() {
        let a = Spread::of([100.0, 110.0, 120.0]);
        let b = Spread::of([115.0, 125.0, 130.0]);
        let c = Spread::of([50.0, 55.0, 60.0]);
        assert_eq!(measured_change(&a, &b), "no measurable change");
        assert_eq!(measured_change(&a, &c), "-50.0%");
    }

    #[test]
    fn times_read_in_words_whatever_their_sign() {
        assert_eq!(ms(840.0), "840 ms");
        assert_eq!(ms(1380.0), "1.38 s");
        assert_eq!(ms(65_100.0), "65.1 s");
        assert_eq!(plus_ms(12.0), "+12 ms");
        assert_eq!(plus_ms(-1250.0), "-1.25 s");
        assert_eq!(plus_ms(0.2), "0 ms");
    }

    #[test]
    fn a_timed_out_measure_is_a_lower_bound() {
        let s = Spread::of([1200.0, 1380.0, 1520.0]);
        assert_eq!(time_spread(&s, 0, 3), "1.38 s (1.20–1.52)");
        assert!(time_spread(&s, 1, 3).starts_with("≥1.38 s"));
        assert_eq!(time_spread(&Spread::default(), 3, 3), "timed out (3/3)");
    }

    #[test]
    fn html_escaping_covers_markup_quotes_and_control_characters() {
        assert_eq!(html("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
        assert_eq!(html("a\u{1b}b"), "a\\x1Bb");
        assert_eq!(short_bytes(2048.0), "2.0 kB");
        assert_eq!(short_bytes(1_234_567.0), "1.2 MB");
        assert_eq!(number(1.5), "1.50");
        assert_eq!(number(150_000.0), "150,000");
    }
}
