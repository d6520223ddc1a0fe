//! Opportunities, ranked: one table of what the rewrite saved and what webdiet only reports,
//! each with the bytes, requests, packets and time at stake, what was done or what to do, the
//! files concerned and where the evidence is — Lighthouse's "opportunities", but from
//! webdiet's own measurements.
//!
//! Where the replay measured the difference (deflate: `pipelined` against `pipelined-deflate`
//! of the rewritten site), the row takes the replay's deterministic figures, and its time on
//! the first named link from the two modes' times there. Elsewhere packets are estimated with
//! the replay's model for one persistent connection (`ceil(bytes / MSS)` data segments per
//! response and one delayed ACK per two), and time from the link's rates
//! ([`savings::estimate_ms`]). A row that cannot be estimated (markup left as it was,
//! oversized files) says so and is ranked last.

use super::figures;
use super::report::{CompressionReport, Opportunity, Report, TimeSource};
use super::savings;
use crate::image::Outcome;
use crate::replay::{Mode, Test};
use crate::report::format::thousands;
use crate::rewrite::lossless::Kind;
use crate::rewrite::markup::MarkupReport;

/// Data segments and delayed ACKs of a response of `bytes` on a persistent connection.
fn packets(bytes: u64, mss: u64) -> i64 {
    let data = bytes.div_ceil(mss.max(1));
    (data + data / 2) as i64
}

/// Every opportunity, ranked: by the time it saves a first visit on the first named link when
/// there is one, then by packets, then bytes; the ones that cannot be estimated last.
pub fn rank(report: &Report) -> Vec<Opportunity> {
    let mss = report.replay.first().map_or(1460, |r| u64::from(r.mss));
    let markup = report.markup.as_ref();
    let mut out: Vec<Opportunity> = [
        gif_to_png(report, mss),
        markup.and_then(|m| markup_to_css(report, m, mss)),
        markup.and_then(|m| images_of_text(m, mss)),
        markup.and_then(markup_left),
        report
            .compression
            .as_ref()
            .and_then(|c| enable_deflate(report, c, mss)),
        report.compression.as_ref().and_then(|c| brotli(c, mss)),
        oversized(report),
    ]
    .into_iter()
    .flatten()
    .chain(lossless(report, mss))
    .map(|o| timed(report, o))
    .collect();
    // Whole microseconds, so that the order is a total one on figures read back from JSON.
    let micros = |o: &Opportunity| o.time_ms.map_or(i64::MIN, |t| (t * 1000.0).round() as i64);
    out.sort_by_key(|o| {
        (
            o.packets.is_none(),
            std::cmp::Reverse(micros(o)),
            std::cmp::Reverse(o.packets.unwrap_or(0)),
            std::cmp::Reverse(o.bytes.unwrap_or(0)),
        )
    });
    out
}

/// The opportunity with its time on the first named link: measured where the replay ran both
/// modes it compares there (deflate), else estimated from the link's rates.
fn timed(report: &Report, mut o: Opportunity) -> Opportunity {
    let Some(first) = savings::first_link(report) else {
        return o;
    };
    let link = first.link.clone();
    if o.time_ms.is_none() {
        if let (Some(b), Some(p), Some(r)) = (o.bytes, o.packets, o.requests) {
            if let Some(ms) = savings::estimate_ms(report, &link, first.mode, b, p, r) {
                o.time_ms = Some(ms);
                o.time_basis = Some(format!(
                    "estimated from {link}'s rates and round-trip time for the bytes, packets \
                     and requests saved, in {}",
                    first.mode
                ));
            }
        }
    }
    if o.time_ms.is_some() {
        o.time_link = Some(link);
    }
    o
}

/// The GIFs converted (done): their bytes and packets saved.
fn gif_to_png(report: &Report, mss: u64) -> Option<Opportunity> {
    let converted: Vec<_> = report
        .images
        .iter()
        .filter(|i| i.outcome == Outcome::Converted)
        .collect();
    if converted.is_empty() {
        return None;
    }
    let targets = figures::image_targets(report);
    Some(Opportunity {
        id: "gif-to-png".into(),
        title: format!("GIF → {targets}, lossless and pixel-verified"),
        status: "done".into(),
        action: format!(
            "done: {} GIF{} replaced by verified {targets} files in the rewritten site",
            converted.len(),
            if converted.len() == 1 { "" } else { "s" }
        ),
        bytes: Some(
            converted
                .iter()
                .map(|i| i.from_bytes as i64 - i.to_bytes as i64)
                .sum(),
        ),
        requests: Some(0),
        packets: Some(
            converted
                .iter()
                .map(|i| packets(i.from_bytes, mss) - packets(i.to_bytes, mss))
                .sum(),
        ),
        time_ms: None,
        time_link: None,
        time_basis: None,
        basis: "image sizes; packets by the model".into(),
        files: converted.iter().map(|i| i.path.clone()).collect(),
        evidence: "images".into(),
    })
}

/// Presentational markup turned into CSS (done): bytes, requests and packets saved, the sheet
/// included.
fn markup_to_css(report: &Report, m: &MarkupReport, mss: u64) -> Option<Opportunity> {
    let pages: Vec<_> = m.pages.iter().filter(|p| p.changed).collect();
    if pages.is_empty() {
        return None;
    }
    let sheet = m.css_bytes;
    let mut packets_saved: i64 = pages
        .iter()
        .map(|p| packets(p.bytes_before, mss) - packets(p.bytes_after, mss))
        .sum();
    if sheet > 0 {
        packets_saved -= packets(sheet, mss);
    }
    // Requests: what the replay saw change (spacers gone, the sheet added); the image
    // conversion does not change the number of requests.
    let requests =
        figures::headline(report).map(|h| h.before.requests as i64 - h.after.requests as i64);
    let mut files: Vec<String> = pages.iter().map(|p| p.path.clone()).collect();
    files.extend(m.css_path.clone());
    let css = match m.css_classes.as_str() {
        "atomic" => format!("{}, atomic classes", m.css_mode),
        _ => m.css_mode.clone(),
    };
    Some(Opportunity {
        id: "markup-to-css".into(),
        title: format!("presentational markup → CSS ({css})"),
        status: "done".into(),
        action: format!(
            "done: {} page{} rewritten with CSS ({css})",
            pages.len(),
            if pages.len() == 1 { "" } else { "s" }
        ),
        bytes: Some(m.html_bytes_before as i64 - (m.html_bytes_after + sheet) as i64),
        requests,
        packets: Some(packets_saved),
        time_ms: None,
        time_link: None,
        time_basis: None,
        basis: "page sizes before and after, the sheet included; requests from the \
                replay's first visit; packets by the model"
            .into(),
        files,
        evidence: "presentational-markup".into(),
    })
}

/// Text drawn as images (reported): what setting it as text would save.
fn images_of_text(m: &MarkupReport, mss: u64) -> Option<Opportunity> {
    let t = &m.text_images_total;
    if t.files == 0 {
        return None;
    }
    let mut files: Vec<String> = m.text_images.iter().map(|r| r.file.clone()).collect();
    files.sort();
    files.dedup();
    let sizes: std::collections::BTreeMap<&str, u64> = m
        .text_images
        .iter()
        .map(|r| (r.file.as_str(), r.bytes))
        .collect();
    Some(Opportunity {
        id: "images-of-text".into(),
        title: "text drawn as images: set it as CSS-styled text".into(),
        status: "reported".into(),
        action: format!(
            "to do: a designer replaces {} image{} of text with styled text",
            t.files,
            if t.files == 1 { "" } else { "s" }
        ),
        bytes: Some(t.bytes as i64),
        requests: Some(t.files as i64),
        packets: Some(sizes.values().map(|&b| packets(b, mss)).sum()),
        time_ms: None,
        time_link: None,
        time_basis: None,
        basis: "the images' sizes, one request each; packets by the model".into(),
        files,
        evidence: "text-drawn-as-images".into(),
    })
}

/// Presentational constructs the rewrite left as they were (reported, not estimated).
fn markup_left(m: &MarkupReport) -> Option<Opportunity> {
    let left: Vec<String> = m
        .pages
        .iter()
        .filter(|p| p.constructs_after > 0)
        .map(|p| p.path.clone())
        .collect();
    if left.is_empty() {
        return None;
    }
    let constructs: usize = m.constructs_after.values().sum();
    Some(Opportunity {
        id: "markup-left".into(),
        title: format!(
            "{constructs} presentational construct{} left as they were",
            if constructs == 1 { "" } else { "s" }
        ),
        status: "reported".into(),
        action: "to look at: each was left for a reason (the markup section lists them)".into(),
        bytes: None,
        requests: None,
        packets: None,
        time_ms: None,
        time_link: None,
        time_basis: None,
        basis: "not estimated: each was left for a reason (see left_as_is)".into(),
        files: left,
        evidence: "presentational-markup".into(),
    })
}

/// Text worth compressing (reported): the replay's reference mode against its deflate twin
/// when both ran (and their times on the first named link, when both ran there and differ by
/// more than the runs' noise), else the deflate estimate.
fn enable_deflate(report: &Report, c: &CompressionReport, mss: u64) -> Option<Opportunity> {
    let est = c.rewritten.as_ref().unwrap_or(&c.original);
    let worth: Vec<String> = est
        .files
        .iter()
        .filter(|f| f.worth_it)
        .map(|f| f.path.clone())
        .collect();
    if worth.is_empty() {
        return None;
    }
    let row = |mode: Mode| figures::row(report, "rewritten", mode, Test::First);
    let plain_mode = Mode::reference();
    let deflated = plain_mode.deflated().and_then(row);
    let (bytes, packets_saved, basis) = match (row(plain_mode), deflated) {
        (Some(plain), Some(deflated)) => (
            plain.bytes() as i64 - deflated.bytes() as i64,
            plain.packets as i64 - deflated.packets as i64,
            format!(
                "the replay: {} against {}, rewritten site",
                plain.mode, deflated.mode
            ),
        ),
        _ => {
            let files = est.files.iter().filter(|f| f.worth_it);
            let bytes = files
                .clone()
                .map(|f| f.sizes.raw as i64 - f.sizes.deflate6 as i64)
                .sum();
            let packets_saved = files
                .map(|f| packets(f.sizes.raw, mss) - packets(f.sizes.deflate6, mss))
                .sum();
            (
                bytes,
                packets_saved,
                "deflate level 6 sizes; packets by the model".to_string(),
            )
        }
    };
    // Time: the two modes' times on the first named link, when both ran there and their
    // difference is a result, not noise (else the estimate from the link's rates).
    let measured = savings::first_link(report).and_then(|first| {
        let plain = savings::link_time(report, &first.link, plain_mode)?;
        let deflated = savings::link_time(report, &first.link, plain_mode.deflated()?)?;
        let resolved = plain.source == TimeSource::Simulated
            || !plain.rewritten_ms.overlaps(&deflated.rewritten_ms);
        if !resolved {
            return None;
        }
        let runs = figures::runs_on(report, &first.link);
        Some((
            plain.rewritten_ms.median - deflated.rewritten_ms.median,
            format!(
                "{}: {plain_mode} against {}, rewritten site",
                savings::source_text(&plain, runs),
                deflated.mode
            ),
        ))
    });
    Some(Opportunity {
        id: "enable-deflate".into(),
        title: "compress text on the server (Content-Encoding: deflate or gzip)".into(),
        status: "reported".into(),
        action: format!(
            "to do: turn on compression for {} text file{} on the server \
             (`rewrite --precompress` writes .gz files for nginx's gzip_static)",
            worth.len(),
            if worth.len() == 1 { "" } else { "s" }
        ),
        bytes: Some(bytes),
        requests: Some(0),
        packets: Some(packets_saved),
        time_ms: measured.as_ref().map(|m| m.0),
        time_link: None,
        time_basis: measured.map(|m| m.1),
        basis,
        files: worth,
        evidence: "compression".into(),
    })
}

/// The site's own PNGs, JPEGs and style sheets made smaller (done), one row per kind.
fn lossless(report: &Report, mss: u64) -> Vec<Opportunity> {
    let Some(l) = &report.lossless else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (kind, id, title) in [
        (
            Kind::Png,
            "recompress-png",
            "PNGs recompressed losslessly (oxipng), pixel-verified",
        ),
        (
            Kind::Jpeg,
            "recompress-jpeg",
            "JPEGs optimised losslessly (Huffman tables, progressive), pixel-verified",
        ),
        (
            Kind::Css,
            "minify-css",
            "style sheets minified (comments and white space, every token kept)",
        ),
        (
            Kind::Js,
            "minify-js",
            "scripts without comments and white space (line breaks and notices kept, proved by oxc)",
        ),
        (
            Kind::Html,
            "minify-html",
            "pages without comments and the white space their rendering ignores (--minify-html)",
        ),
    ] {
        let rows: Vec<_> = l
            .rows
            .iter()
            .filter(|r| r.kind == kind && r.to_bytes < r.from_bytes)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let renamed = rows.iter().filter(|r| r.to_path.is_some()).count();
        let (title, how) = match renamed {
            0 => (title.to_string(), "in place".to_string()),
            n => (
                "PNGs recompressed losslessly (oxipng) or made lossless WebPs, pixel-verified"
                    .to_string(),
                format!("{n} of them as WebP with their references rewritten"),
            ),
        };
        out.push(Opportunity {
            id: id.into(),
            title,
            status: "done".into(),
            action: format!(
                "done: {} file{} made smaller ({how}), verified",
                rows.len(),
                if rows.len() == 1 { "" } else { "s" }
            ),
            bytes: Some(
                rows.iter()
                    .map(|r| (r.from_bytes - r.to_bytes) as i64)
                    .sum(),
            ),
            requests: Some(0),
            packets: Some(
                rows.iter()
                    .map(|r| packets(r.from_bytes, mss) - packets(r.to_bytes, mss))
                    .sum(),
            ),
            time_ms: None,
            time_link: None,
            time_basis: None,
            basis: "file sizes before and after; packets by the model".into(),
            files: rows.iter().map(|r| r.path.clone()).collect(),
            evidence: "images".into(),
        });
    }
    out
}

/// brotli beside deflate (reported): what `.br` files at brotli 11 save over deflate 6 on
/// the text worth compressing.
fn brotli(c: &CompressionReport, mss: u64) -> Option<Opportunity> {
    let est = c.rewritten.as_ref().unwrap_or(&c.original);
    let files: Vec<_> = est
        .files
        .iter()
        .filter(|f| f.worth_it && f.sizes.brotli11 > 0 && f.sizes.brotli11 < f.sizes.deflate6)
        .collect();
    if files.is_empty() {
        return None;
    }
    Some(Opportunity {
        id: "serve-brotli".into(),
        title: "serve brotli to browsers that accept it (`rewrite --precompress` writes .br \
                files at level 11; the replay's h2-br mode measures it)"
            .into(),
        status: "reported".into(),
        action: format!(
            "to do: serve brotli for {} text file{} (`rewrite --precompress` writes .br files)",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        ),
        bytes: Some(
            files
                .iter()
                .map(|f| f.sizes.deflate6 as i64 - f.sizes.brotli11 as i64)
                .sum(),
        ),
        requests: Some(0),
        packets: Some(
            files
                .iter()
                .map(|f| packets(f.sizes.deflate6, mss) - packets(f.sizes.brotli11, mss))
                .sum(),
        ),
        time_ms: None,
        time_link: None,
        time_basis: None,
        basis: match &est.top_levels {
            None => "brotli 11 against deflate 6 sizes; packets by the model".into(),
            Some(s) => format!(
                "brotli 11 against deflate 6 sizes, brotli 11 measured on {} files and \
                 estimated from brotli 5 for the rest (±{} bytes on the whole text at 95%); \
                 packets by the model",
                s.measured_files, s.brotli11_margin
            ),
        },
        files: files.iter().map(|f| f.path.clone()).collect(),
        evidence: "compression".into(),
    })
}

/// Files large enough to be worth a look (reported, not estimated).
fn oversized(report: &Report) -> Option<Opportunity> {
    let files = figures::oversized(report);
    if files.is_empty() {
        return None;
    }
    Some(Opportunity {
        id: "oversized".into(),
        title: format!(
            "files of {} bytes or more: worth a look",
            thousands(figures::OVERSIZED_BYTES)
        ),
        status: "reported".into(),
        action: "to look at: smaller images, pages split in parts".into(),
        bytes: None,
        requests: None,
        packets: None,
        time_ms: None,
        time_link: None,
        time_basis: None,
        basis: "not estimated: what is possible depends on the content".into(),
        files: files.into_iter().map(|(path, _)| path).collect(),
        evidence: "largest-files".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opportunities_are_ranked_by_packets_then_bytes_and_unestimated_ones_come_last() {
        let report = crate::report::model::sample::sample();
        let ranked = rank(&report);
        let ids: Vec<&str> = ranked.iter().map(|o| o.id.as_str()).collect();
        assert!(ids.contains(&"gif-to-png"), "{ids:?}");
        assert!(ids.contains(&"enable-deflate"), "{ids:?}");
        let estimated: Vec<i64> = ranked.iter().filter_map(|o| o.packets).collect();
        assert!(estimated.windows(2).all(|w| w[0] >= w[1]), "{ranked:?}");
        let first_unestimated = ranked.iter().position(|o| o.packets.is_none());
        if let Some(i) = first_unestimated {
            assert!(ranked[i..].iter().all(|o| o.packets.is_none()));
        }
    }

    #[test]
    fn deflate_is_measured_by_the_replay_when_both_modes_ran() {
        let mut report = crate::report::model::sample::sample();
        for mode in ["pipelined", "pipelined-deflate"] {
            let packets = if mode == "pipelined" { 100 } else { 70 };
            report.replay.push(crate::replay::row::sample_row(
                "rewritten",
                mode,
                "first",
                packets,
                10 * packets,
            ));
        }
        report.replay.retain(|r| {
            !(r.site == "rewritten"
                && r.test == Test::First
                && r.mode.as_str().starts_with("pipelined")
                && r.packets != 100
                && r.packets != 70)
        });
        let deflate = rank(&report)
            .into_iter()
            .find(|o| o.id == "enable-deflate")
            .expect("text worth compressing");
        assert_eq!(deflate.packets, Some(30));
        assert_eq!(deflate.bytes, Some(300));
        assert!(deflate.basis.contains("replay"));
    }

    #[test]
    fn lossless_savings_are_rows_ranked_with_the_others_and_kept_files_are_not_listed() {
        use crate::image::Recompression;
        use crate::rewrite::lossless::{LosslessReport, LosslessRow};
        let mut report = crate::report::model::sample::sample();
        let row = |path: &str, kind, from, to| LosslessRow {
            path: path.into(),
            kind,
            from_bytes: from,
            to_bytes: to,
            outcome: Recompression::Optimized,
            reason: String::new(),
            dropped: Vec::new(),
            cpu_millis: 0.0,
            to_path: None,
            original_kept: false,
        };
        report.lossless = Some(LosslessReport {
            rows: vec![
                row("big.png", Kind::Png, 90_000, 60_000),
                row("same.png", Kind::Png, 500, 500),
                row("photo.jpg", Kind::Jpeg, 40_000, 37_000),
                row("site.css", Kind::Css, 9_000, 7_000),
                row("index.html", Kind::Html, 5_000, 4_600),
            ],
            ..LosslessReport::default()
        });
        let ranked = rank(&report);
        let find = |id: &str| ranked.iter().find(|o| o.id == id).cloned().unwrap();
        let png = find("recompress-png");
        assert_eq!(png.bytes, Some(30_000));
        assert_eq!(png.files, vec!["big.png".to_string()]);
        assert_eq!(find("recompress-jpeg").bytes, Some(3_000));
        assert_eq!(find("minify-css").bytes, Some(2_000));
        assert_eq!(find("minify-html").bytes, Some(400));
        assert_eq!(find("minify-html").files, vec!["index.html".to_string()]);
        let position = |id: &str| ranked.iter().position(|o| o.id == id).unwrap();
        assert!(position("recompress-png") < position("recompress-jpeg"));
        let estimated: Vec<i64> = ranked.iter().filter_map(|o| o.packets).collect();
        assert!(estimated.windows(2).all(|w| w[0] >= w[1]), "{ranked:?}");
    }

    #[test]
    fn a_gif_conversion_saves_the_segments_of_its_bytes() {
        assert_eq!(packets(2920, 1460), 3);
        assert_eq!(packets(2921, 1460), 4);
        assert_eq!(packets(0, 1460), 0);
    }

    #[test]
    fn a_measured_time_inside_the_noise_gives_way_to_the_estimate() {
        use crate::replay::row::{sample_row, RowLink};
        let cable = crate::sim::link::parse("Cable").unwrap().remove(0);
        let mut report = crate::report::model::sample::sample();
        for (site, mode, ms) in [
            ("original", "pipelined", [500.0, 520.0, 540.0]),
            ("rewritten", "pipelined", [400.0, 420.0, 440.0]),
            ("rewritten", "pipelined-deflate", [398.0, 418.0, 438.0]),
        ] {
            let mut r = sample_row(site, mode, "first", 100, 10_000);
            r.link = RowLink::new(&cable, vec![1, 2, 3]);
            r.time.last_packet_ms = crate::replay::Spread::of(ms);
            report.replay.push(r);
        }
        report.derive();
        let deflate = report
            .opportunities
            .iter()
            .find(|o| o.id == "enable-deflate")
            .unwrap();
        assert!(
            deflate
                .time_basis
                .as_deref()
                .unwrap()
                .starts_with("estimated"),
            "{deflate:?}"
        );
        assert_eq!(deflate.time_link.as_deref(), Some("Cable"));
    }
}
