//! Per-file findings: what a code-scanning panel or a merge request should show next to the
//! file it is about — broken references, GIFs converted or kept (with the reason), the
//! presentational markup left in a page, images of text, text served uncompressed. Each has a
//! stable rule id (the same on every run and in every version), a file of the original site
//! (never one the rewrite made), the line where the text that causes it is found, and a
//! fingerprint from the rule, the file and its subject. A subject found several times in one
//! file (a broken reference written twice) makes a finding per occurrence, each with its own
//! line and fingerprint, so that code scanning and GitLab do not merge them into one.

use super::report::{Finding, FindingLevel, Report};
use crate::image::Outcome;

/// A rule: its stable id, its level, and what it checks, for SARIF's rule list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub level: FindingLevel,
    /// A short name, for a panel.
    pub name: &'static str,
    /// What it means and what to do.
    pub help: &'static str,
}

/// Every rule, in a fixed order (SARIF's `ruleIndex` is the place here).
pub const RULES: [Rule; 7] = [
    Rule {
        id: "webdiet/broken-by-rewrite",
        level: FindingLevel::Error,
        name: "BrokenByRewrite",
        help: "A reference that resolved in the original site does not in the rewritten one: \
               the rewrite broke it, and the run fails.",
    },
    Rule {
        id: "webdiet/broken-reference",
        level: FindingLevel::Warning,
        name: "BrokenReference",
        help: "A page names a file the site does not have: a visitor gets a 404.",
    },
    Rule {
        id: "webdiet/gif-convertible",
        level: FindingLevel::Note,
        name: "GifConvertible",
        help: "This GIF has a smaller, lossless, pixel-verified PNG, APNG or WebP in the \
               rewritten site: deploy the rewritten site, or replace the GIF with it.",
    },
    Rule {
        id: "webdiet/gif-kept",
        level: FindingLevel::Note,
        name: "GifKept",
        help: "This GIF was kept as it is, for the reason given (its conversion was not \
               smaller, failed its pixel check, is animated with --no-apng, is corrupt or too \
               large, or nothing refers to it).",
    },
    Rule {
        id: "webdiet/presentational-markup",
        level: FindingLevel::Warning,
        name: "PresentationalMarkup",
        help: "Presentational markup (<font>, bgcolor, spacer GIFs, …) left in this page, \
               each for the reason given: style sheets would carry it once for every page.",
    },
    Rule {
        id: "webdiet/text-image",
        level: FindingLevel::Warning,
        name: "TextImage",
        help: "An image that shows text: as CSS-styled text it would cost no request and \
               no image bytes, and could be read, searched and enlarged.",
    },
    Rule {
        id: "webdiet/uncompressed-text",
        level: FindingLevel::Warning,
        name: "UncompressedText",
        help: "A text file the server sends uncompressed that deflate or gzip would make \
               smaller by at least a packet: turn compression on (or `rewrite \
               --precompress` for nginx's gzip_static).",
    },
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// What [`derive()`] reads a site file with, to find a finding's line: the file's bytes, or
/// `None` when it cannot be read (the line is then unknown).
pub type Reader<'a> = &'a dyn Fn(&str) -> Option<Vec<u8>>;

/// One finding before its line is found: what to look for in its file.
struct Draft {
    finding: Finding,
    /// What the finding is about within its file, for the fingerprint.
    subject: String,
    /// Text whose occurrence in the file is the line (ASCII case ignored): the first for the
    /// first finding of a subject, the second for the second, and so on.
    needle: Option<String>,
    /// How many findings of the same rule, file and subject come before this one.
    occurrence: usize,
}

fn draft(
    rule: &Rule,
    path: &str,
    subject: &str,
    message: String,
    bytes: Option<i64>,
    needle: Option<String>,
) -> Draft {
    Draft {
        finding: Finding {
            rule: rule.id.to_string(),
            level: rule.level,
            path: path.to_string(),
            line: None,
            message,
            bytes,
            fingerprint: String::new(),
        },
        subject: subject.to_string(),
        needle,
        occurrence: 0,
    }
}

/// The fingerprint of a finding: from its rule, file and subject, and for the second and
/// later finding of the same subject in one file, its place among them (the first keeps the
/// fingerprint it has always had).
fn fingerprint(rule: &str, path: &str, subject: &str, occurrence: usize) -> String {
    let hex = match occurrence {
        0 => crate::digest::hex(&[rule, path, subject]),
        n => crate::digest::hex(&[rule, path, subject, &n.to_string()]),
    };
    hex[..32].to_string()
}

/// Numbers the findings of the same rule, file and subject in the order they were made (the
/// order of the page), and gives each its fingerprint.
fn number_occurrences(drafts: &mut [Draft]) {
    let mut seen: std::collections::HashMap<(String, String, String), usize> = Default::default();
    for d in drafts.iter_mut() {
        let key = (
            d.finding.rule.clone(),
            d.finding.path.clone(),
            d.subject.clone(),
        );
        let n = seen.entry(key).or_default();
        d.occurrence = *n;
        *n += 1;
        d.finding.fingerprint = fingerprint(&d.finding.rule, &d.finding.path, &d.subject, *n - 1);
    }
}

/// Every finding of `report`, errors first, then the largest saving, then by file; with lines
/// when `read` can read the original site's files.
pub fn derive(report: &Report, read: Option<Reader>) -> Vec<Finding> {
    let mut drafts = Vec::new();
    broken(report, &mut drafts);
    gifs(report, &mut drafts);
    markup(report, &mut drafts);
    uncompressed(report, &mut drafts);
    number_occurrences(&mut drafts);
    if let Some(read) = read {
        find_lines(&mut drafts, read);
    }
    let mut out: Vec<Finding> = drafts.into_iter().map(|d| d.finding).collect();
    out.sort_by(|a, b| {
        (
            a.level,
            std::cmp::Reverse(a.bytes.unwrap_or(0)),
            &a.path,
            &a.rule,
        )
            .cmp(&(
                b.level,
                std::cmp::Reverse(b.bytes.unwrap_or(0)),
                &b.path,
                &b.rule,
            ))
    });
    out
}

/// Sets each draft's line: every file is read once and searched once for all its needles, so
/// a page with 60,000 broken links costs one pass over it, not 60,000. The n-th finding of a
/// needle gets the line of its n-th occurrence.
fn find_lines(drafts: &mut [Draft], read: Reader) {
    let mut by_path: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
    for (i, d) in drafts.iter().enumerate() {
        if d.needle.as_deref().is_some_and(|n| !n.is_empty()) {
            by_path.entry(d.finding.path.as_str()).or_default().push(i);
        }
    }
    let mut lines: Vec<(usize, u32)> = Vec::new();
    for (path, ids) in by_path {
        let Some(bytes) = read(path) else { continue };
        // Each distinct needle once, with the most occurrences any finding needs.
        let mut wanted: std::collections::BTreeMap<&str, usize> = Default::default();
        for &i in &ids {
            if let Some(n) = drafts[i].needle.as_deref() {
                let most = wanted.entry(n).or_default();
                *most = (*most).max(drafts[i].occurrence + 1);
            }
        }
        let (needles, counts): (Vec<&str>, Vec<usize>) = wanted.into_iter().unzip();
        let found = occurrence_lines(&bytes, &needles, &counts);
        for &i in &ids {
            let needle = drafts[i].needle.as_deref().unwrap_or_default();
            if let Ok(k) = needles.binary_search(&needle) {
                if let Some(&line) = found[k].get(drafts[i].occurrence) {
                    lines.push((i, line));
                }
            }
        }
    }
    for (i, line) in lines {
        drafts[i].finding.line = Some(line);
    }
}

/// The line (from 1) of the first occurrence of each of `needles` in `bytes`, ASCII case
/// ignored.
pub fn lines_of(bytes: &[u8], needles: &[&str]) -> Vec<Option<u32>> {
    occurrence_lines(bytes, needles, &vec![1; needles.len()])
        .into_iter()
        .map(|l| l.first().copied())
        .collect()
}

/// The lines (from 1) of the first `counts[k]` occurrences of each `needles[k]` in `bytes`,
/// ASCII case ignored: one Aho-Corasick pass over the bytes, stopping once every needle has
/// been seen often enough, then one count of the line breaks.
pub fn occurrence_lines(bytes: &[u8], needles: &[&str], counts: &[usize]) -> Vec<Vec<u32>> {
    let mut lines = vec![Vec::new(); needles.len()];
    let Ok(searcher) = aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(needles)
    else {
        return lines;
    };
    let mut seen = vec![0usize; needles.len()];
    let mut left = counts.iter().filter(|&&c| c > 0).count();
    // Where each needle occurs, as (position, needle), as many times as wanted.
    let mut at: Vec<(usize, usize)> = Vec::new();
    for m in searcher.find_overlapping_iter(bytes) {
        let k = m.pattern().as_usize();
        if seen[k] < counts[k] {
            seen[k] += 1;
            at.push((m.start(), k));
            if seen[k] == counts[k] {
                left -= 1;
                if left == 0 {
                    break;
                }
            }
        }
    }
    // Their lines, counted in one walk over the bytes in position order.
    at.sort_unstable();
    let (mut line, mut from) = (1u32, 0usize);
    for (pos, k) in at {
        line += bytes[from..pos].iter().filter(|&&b| b == b'\n').count() as u32;
        from = pos;
        lines[k].push(line);
    }
    lines
}

fn broken(report: &Report, out: &mut Vec<Draft>) {
    for b in &report.rewrite.broken_by_rewrite {
        out.push(draft(
            &RULES[0],
            &b.page,
            &b.reference,
            format!(
                "{} ({}) no longer resolves in the rewritten site: {}",
                b.reference,
                kind(b.kind),
                b.reason
            ),
            None,
            Some(b.reference.clone()),
        ));
    }
    let Some(inv) = &report.inventory else {
        return;
    };
    for b in &inv.broken_references {
        out.push(draft(
            &RULES[1],
            &b.page,
            &b.reference,
            format!("{} ({}) is broken: {}", b.reference, kind(b.kind), b.reason),
            None,
            Some(b.reference.clone()),
        ));
    }
}

/// A reference's kind as `report.json` writes it (`img`, `stylesheet`, …).
fn kind(k: crate::html::RefKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn gifs(report: &Report, out: &mut Vec<Draft>) {
    for i in &report.images {
        let saved = i.from_bytes as i64 - i.to_bytes as i64;
        if i.outcome == Outcome::Converted {
            out.push(draft(
                &RULES[2],
                &i.path,
                "",
                format!(
                    "{} ({} bytes) → {} ({} bytes, {}), lossless and pixel-verified: saves {} \
                     bytes",
                    i.path,
                    crate::report::format::thousands(i.from_bytes),
                    i.to_path,
                    crate::report::format::thousands(i.to_bytes),
                    i.format,
                    crate::report::format::thousands(saved.max(0) as u64)
                ),
                Some(saved),
                None,
            ));
        } else {
            out.push(draft(
                &RULES[3],
                &i.path,
                "",
                format!("{} kept as a GIF: {}", i.path, i.reason),
                None,
                None,
            ));
        }
    }
}

fn markup(report: &Report, out: &mut Vec<Draft>) {
    let Some(m) = &report.markup else {
        return;
    };
    for p in m.pages.iter().filter(|p| p.constructs_after > 0) {
        let left: Vec<String> = p
            .by_construct
            .iter()
            .filter(|(_, c)| c.after > 0)
            .map(|(name, c)| format!("{name} × {}", c.after))
            .collect();
        let reasons: Vec<String> = p
            .left_as_is
            .iter()
            .map(|(r, n)| format!("{r} × {n}"))
            .collect();
        let first = p
            .by_construct
            .iter()
            .find(|(_, c)| c.after > 0)
            .map(|(name, _)| needle_of_construct(name));
        out.push(draft(
            &RULES[4],
            &p.path,
            "",
            format!(
                "{} presentational construct{} left as {}: {}{}",
                p.constructs_after,
                if p.constructs_after == 1 { "" } else { "s" },
                if p.constructs_after == 1 {
                    "it was"
                } else {
                    "they were"
                },
                left.join(", "),
                match (reasons.is_empty(), &p.kept) {
                    (false, _) => format!(" (because: {})", reasons.join(", ")),
                    (true, Some(kept)) => format!(" (the page was {kept})"),
                    (true, None) => String::new(),
                }
            ),
            None,
            first,
        ));
    }
    // The rewrite's file → the original's (a converted GIF's PNG → the GIF): the text images
    // were found in the rewritten pages, whose `src` names the converted file.
    let originals: std::collections::BTreeMap<&str, &str> = report
        .images
        .iter()
        .filter(|i| i.to_path != i.path)
        .map(|i| (i.to_path.as_str(), i.path.as_str()))
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for t in &m.text_images {
        let src = original_src(&t.src, &t.file, &originals);
        if !seen.insert((&t.page, src.clone())) {
            continue;
        }
        out.push(draft(
            &RULES[5],
            &t.page,
            &src,
            format!(
                "{} shows text{}: as CSS-styled text a first visit saves a request and {} \
                 bytes",
                src,
                if t.alt.is_empty() {
                    String::new()
                } else {
                    format!(" (\"{}\")", t.alt)
                },
                crate::report::format::thousands(t.bytes)
            ),
            Some(t.bytes as i64),
            Some(src.clone()),
        ));
    }
}

/// An image's `src` as the original page writes it: when the rewrite converted the image
/// (`file` is the converted file, `originals` maps it to the original), its last segment is
/// the original's file name again (`img/h_title.png` → `img/h_title.gif`).
fn original_src(
    src: &str,
    file: &str,
    originals: &std::collections::BTreeMap<&str, &str>,
) -> String {
    let name = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let Some(original) = originals.get(file) else {
        return src.to_string();
    };
    match src.strip_suffix(name(file).as_str()) {
        Some(dir) => format!("{dir}{}", name(original)),
        None => src.to_string(),
    }
}

/// What a construct looks like in the page's source: an element's start tag, an
/// attribute's name.
fn needle_of_construct(name: &str) -> String {
    const ELEMENTS: [&str; 10] = [
        "font", "center", "basefont", "big", "small", "tt", "u", "s", "strike", "blink",
    ];
    match name {
        n if ELEMENTS.contains(&n) => format!("<{n}"),
        n if n.starts_with("spacer") => "spacer".to_string(),
        n => format!("{n}="),
    }
}

fn uncompressed(report: &Report, out: &mut Vec<Draft>) {
    let Some(c) = &report.compression else {
        return;
    };
    for f in c.original.files.iter().filter(|f| f.worth_it) {
        let saved = f.sizes.raw as i64 - f.sizes.deflate6 as i64;
        out.push(draft(
            &RULES[6],
            &f.path,
            "",
            format!(
                "{} is {} bytes; deflated (level 6) it would be {}: compressing it saves {} \
                 bytes of every first visit that fetches it",
                f.path,
                crate::report::format::thousands(f.sizes.raw),
                crate::report::format::thousands(f.sizes.deflate6),
                crate::report::format::thousands(saved.max(0) as u64)
            ),
            Some(saved),
            None,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::sample;

    #[test]
    fn every_kind_of_finding_has_a_stable_rule_and_fingerprint() {
        let report = sample();
        let findings = derive(&report, None);
        let rules: std::collections::BTreeSet<&str> =
            findings.iter().map(|f| f.rule.as_str()).collect();
        for id in [
            "webdiet/gif-convertible",
            "webdiet/gif-kept",
            "webdiet/uncompressed-text",
        ] {
            assert!(rules.contains(id), "{id}: {rules:?}");
        }
        for f in &findings {
            assert!(rule(&f.rule).is_some(), "{} is a listed rule", f.rule);
            assert_eq!(f.fingerprint.len(), 32);
        }
        let again = derive(&report, None);
        assert_eq!(findings, again, "the same report gives the same findings");
        let prints: std::collections::BTreeSet<&str> =
            findings.iter().map(|f| f.fingerprint.as_str()).collect();
        assert_eq!(prints.len(), findings.len(), "fingerprints are unique");
    }

    #[test]
    fn a_finding_gets_the_line_its_text_is_on() {
        let page = b"<html>\n<body>\n<FONT size=2>\n<p><font>";
        assert_eq!(
            lines_of(page, &["<font", "x", "<p>"]),
            [Some(3), None, Some(4)]
        );
        let mut report = sample();
        report.inventory = Some(Default::default());
        report.inventory.as_mut().unwrap().broken_references.push(
            crate::inventory::BrokenReference {
                page: "index.html".into(),
                reference: "gone.gif".into(),
                kind: crate::html::RefKind::Img,
                reason: "gone.gif does not exist".into(),
            },
        );
        let read = |path: &str| {
            (path == "index.html").then(|| b"<html>\n\n<img src=\"gone.gif\">".to_vec())
        };
        let findings = derive(&report, Some(&read));
        let broken = findings
            .iter()
            .find(|f| f.rule == "webdiet/broken-reference")
            .unwrap();
        assert_eq!((broken.path.as_str(), broken.line), ("index.html", Some(3)));
        assert_eq!(broken.level, FindingLevel::Warning);
    }

    fn broken(page: &str, reference: &str) -> crate::inventory::BrokenReference {
        crate::inventory::BrokenReference {
            page: page.into(),
            reference: reference.into(),
            kind: crate::html::RefKind::Img,
            reason: format!("{reference} does not exist"),
        }
    }

    #[test]
    fn the_same_broken_reference_twice_in_a_page_is_two_findings_each_with_its_line_and_fingerprint(
    ) {
        let mut report = sample();
        report.inventory = Some(Default::default());
        let inventory = report.inventory.as_mut().unwrap();
        inventory.broken_references = vec![
            broken("index.html", "gone.gif"),
            broken("index.html", "gone.gif"),
            broken("other.html", "gone.gif"),
        ];
        let read = |path: &str| {
            (path == "index.html")
                .then(|| b"<html>\n<img src=\"gone.gif\">\n\n<IMG SRC=\"GONE.GIF\">".to_vec())
        };
        let findings = derive(&report, Some(&read));
        let twice: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.rule == "webdiet/broken-reference" && f.path == "index.html")
            .collect();
        assert_eq!(twice.len(), 2);
        let mut lines: Vec<Option<u32>> = twice.iter().map(|f| f.line).collect();
        lines.sort();
        assert_eq!(lines, [Some(2), Some(4)], "each occurrence its own line");
        assert_ne!(twice[0].fingerprint, twice[1].fingerprint);
        let prints: std::collections::BTreeSet<&str> =
            findings.iter().map(|f| f.fingerprint.as_str()).collect();
        assert_eq!(prints.len(), findings.len(), "one fingerprint per finding");
        let first = fingerprint("webdiet/broken-reference", "index.html", "gone.gif", 0);
        assert!(
            twice.iter().any(|f| f.fingerprint == first),
            "the first keeps the fingerprint it always had"
        );
    }

    #[test]
    fn a_text_image_is_found_at_its_original_file_and_line_after_its_conversion() {
        let mut report = sample();
        let markup = report.markup.as_mut().unwrap();
        markup.text_images = vec![crate::rewrite::markup::TextImageRow {
            page: "index.html".into(),
            src: "img/logo.png".into(),
            file: "img/logo.png".into(),
            alt: "Home".into(),
            width: 120,
            height: 20,
            colors: 4,
            bytes: 9_000,
        }];
        let read = |path: &str| {
            (path == "index.html")
                .then(|| b"<html>\n\n<a href=/><img src=img/logo.gif alt=Home></a>".to_vec())
        };
        let findings = derive(&report, Some(&read));
        let text = findings
            .iter()
            .find(|f| f.rule == "webdiet/text-image")
            .unwrap();
        assert_eq!((text.path.as_str(), text.line), ("index.html", Some(3)));
        assert!(
            text.message.starts_with("img/logo.gif shows text"),
            "{}",
            text.message
        );
        assert!(!text.message.contains("logo.png"), "{}", text.message);
    }

    #[test]
    fn the_nth_occurrence_of_a_needle_is_on_its_own_line() {
        let page = b"a\nb gone\nc\nGone gone";
        assert_eq!(
            occurrence_lines(page, &["gone", "c"], &[3, 1]),
            [vec![2, 4, 4], vec![3]]
        );
        assert_eq!(occurrence_lines(page, &["gone"], &[5]), [vec![2, 4, 4]]);
    }
}
