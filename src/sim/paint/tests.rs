//! The visitor's load as specifications: a sheet added to a page that had none paints later by
//! a round trip, inline styles do not; a page's own bytes come before its first paint; the same
//! load gives the same times on every run.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::replay::ServedSite;
use crate::sim::link::parse;

fn site(files: &[(&str, &str)]) -> ServedSite {
    let files: BTreeMap<String, Vec<u8>> = files
        .iter()
        .map(|(p, b)| (p.to_string(), b.as_bytes().to_vec()))
        .collect();
    ServedSite::from_memory("site", files)
}

fn link(name: &str) -> LinkSpec {
    match parse(name).unwrap().remove(0) {
        crate::sim::link::Link::Emulated(spec) => *spec,
        other => panic!("{other:?}"),
    }
}

fn paint(site: &ServedSite, page: &str, link_name: &str, speaks: Speaks) -> Paint {
    let graph = PageGraph::of(site, page).unwrap();
    let opts = PaintOptions {
        speaks,
        ..PaintOptions::default()
    };
    simulate(&graph, site, &BTreeSet::new(), &link(link_name), &opts).unwrap()
}

const TEXT: &str = "<p>Old news from 1997, set in a table with a font and a colour.</p>";

#[test]
fn a_sheet_added_to_a_page_without_one_makes_it_paint_a_round_trip_later() {
    let plain = site(&[("index.html", &format!("<html><body>{TEXT}</body></html>"))]);
    let sheet = site(&[
        (
            "index.html",
            &format!(
                "<html><head><link rel=stylesheet href=s.css></head><body>{TEXT}</body></html>"
            ),
        ),
        ("s.css", "p { color: red }"),
    ]);
    let inline = site(&[(
        "index.html",
        &format!("<html><head><style>p {{ color: red }}</style></head><body>{TEXT}</body></html>"),
    )]);
    for speaks in [Speaks::H2, Speaks::Http1] {
        let rtt = 300.0; // 3G
        let before = paint(&plain, "index.html", "3G", speaks);
        let after = paint(&sheet, "index.html", "3G", speaks);
        let styled = paint(&inline, "index.html", "3G", speaks);
        assert!(
            after.fcp_ms >= before.fcp_ms + rtt * 0.9,
            "{speaks:?}: {before:?} → {after:?}"
        );
        assert!(styled.fcp_ms < before.fcp_ms + rtt / 2.0, "{styled:?}");
    }
}

#[test]
fn the_largest_image_paints_last_and_load_waits_for_every_fetch() {
    let mut gif = Vec::new();
    {
        let mut e = gif::Encoder::new(&mut gif, 200, 100, &[0, 0, 0, 255, 255, 255]).unwrap();
        e.write_frame(&gif::Frame::from_indexed_pixels(
            200,
            100,
            vec![1; 20_000],
            None,
        ))
        .unwrap();
    }
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    files.insert(
        "index.html".into(),
        format!("<html><body>{TEXT}<img src=big.gif></body></html>").into_bytes(),
    );
    files.insert("big.gif".into(), gif);
    let s = ServedSite::from_memory("site", files);
    let p = paint(&s, "index.html", "3G", Speaks::H2);
    assert!(
        p.ttfb_ms <= p.fcp_ms && p.fcp_ms < p.lcp_ms && p.lcp_ms <= p.load_ms,
        "{p:?}"
    );
}

#[test]
fn the_same_load_gives_the_same_times_every_time() {
    let s = site(&[
        (
            "index.html",
            &format!("<html><head><link rel=stylesheet href=s.css><script src=a.js></script></head><body>{TEXT}</body></html>"),
        ),
        ("s.css", "body { background: url(bg.gif) }"),
        ("a.js", "var x = 1;"),
    ]);
    let a = paint(&s, "index.html", "Cable", Speaks::Http1);
    let b = paint(&s, "index.html", "Cable", Speaks::Http1);
    assert_eq!(a, b);
}

#[test]
fn a_page_found_from_the_landing_pages_cache_revalidates_what_it_has() {
    let s = site(&[
        (
            "index.html",
            &format!(
                "<html><head><link rel=stylesheet href=s.css></head><body>{TEXT}</body></html>"
            ),
        ),
        (
            "two.html",
            &format!(
                "<html><head><link rel=stylesheet href=s.css></head><body>{TEXT}</body></html>"
            ),
        ),
        ("s.css", &"p { color: red }\n".repeat(2000)),
    ]);
    let graph = PageGraph::of(&s, "two.html").unwrap();
    let cached: BTreeSet<String> = ["index.html".to_string(), "s.css".to_string()].into();
    let opts = |visit| PaintOptions {
        visit,
        ..PaintOptions::default()
    };
    let first = simulate(&graph, &s, &cached, &link("3G"), &opts(Visit::First)).unwrap();
    let again = simulate(&graph, &s, &cached, &link("3G"), &opts(Visit::AfterLanding)).unwrap();
    assert!(again.fcp_ms < first.fcp_ms, "{first:?} {again:?}");
}

#[test]
fn the_first_content_is_the_first_text_or_image_whatever_tags_end_around_it() {
    let s = site(&[
        (
            "a.html",
            "<html><head><title>T</title><!-- a comment --></head>\n<body>\n<p>Hello</p></body></html>",
        ),
        ("b.html", "<html><head><title>T</title></head></html>\n Text without a body tag"),
        ("c.html", "<p></p><!-- x --></p>\n<img src=x.gif>"),
        ("d.html", "<frameset><frame src=a.html></frameset>"),
    ]);
    let at = |page: &str| PageGraph::of(&s, page).unwrap().first_content;
    let a = "<html><head><title>T</title><!-- a comment --></head>\n<body>\n<p>";
    assert_eq!(at("a.html"), Some(a.len() as u64 + 1));
    let b = "<html><head><title>T</title></head></html>\n ";
    assert_eq!(at("b.html"), Some(b.len() as u64 + 1));
    assert_eq!(
        at("c.html"),
        Some("<p></p><!-- x --></p>\n<img src=x.gif>".len() as u64)
    );
    assert_eq!(at("d.html"), None);
}

#[test]
fn every_page_is_visited_first_and_again_and_every_page_but_the_landing_one_after_it() {
    let page = format!("<html><body>{TEXT}</body></html>");
    let s = site(&[("index.html", &page), ("two.html", &page)]);
    let pages = ["index.html".to_string(), "two.html".to_string()];
    let paint = site::site_paint(&s, &s, &pages, "index.html", &[link("3G")], Cpu::default());
    let visited = |speaks, visit| -> Vec<&str> {
        let link = paint
            .links
            .iter()
            .find(|l| l.speaks == speaks && l.visit == visit)
            .unwrap();
        link.pages.iter().map(|p| p.page.as_str()).collect()
    };
    let every = vec!["index.html", "two.html"];
    assert_eq!(visited(Speaks::H2, Visit::First), every);
    assert_eq!(visited(Speaks::Http1, Visit::First), every);
    // A repeat visit is Chromium's validation run: the same page again, the landing one too.
    assert_eq!(visited(Speaks::H2, Visit::Repeat), every);
    assert_eq!(visited(Speaks::Http1, Visit::Repeat), every);
    assert_eq!(visited(Speaks::H2, Visit::AfterLanding), vec!["two.html"]);
}
