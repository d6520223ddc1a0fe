use super::*;

fn site(text: &str) -> (PageMarkup, String, SiteSheet) {
    let page = convert_page(text, &MarkupOptions::default());
    let sheet = build_sheet([&page]).unwrap();
    let html = sheet.page_html(&page);
    (page, html, sheet)
}

#[test]
fn font_becomes_a_classed_span_and_the_sheet_holds_its_style() {
    let (page, html, sheet) =
        site("<html><body><font color=red size=+1 face=Arial>Hi</font></body></html>");
    assert!(html.contains("<span class="), "{html}");
    assert!(!html.contains("<font"), "{html}");
    assert!(
        html.contains("<link rel=stylesheet href=webdiet.css>"),
        "{html}"
    );
    assert!(sheet.css.contains("font-size:large"), "{}", sheet.css);
    assert!(sheet.css.contains("font-family:Arial"), "{}", sheet.css);
    assert_eq!(page.constructs_before.get("font"), Some(&1));
    assert_eq!(page.constructs_after.get("font"), None);
}

#[test]
fn quirks_pages_keep_their_doctype_and_unchanged_pages_their_bytes() {
    let quirky = "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\">\n<center>x</center>";
    let (_, html, _) = site(quirky);
    assert!(html.starts_with("<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\">"));
    let plain = "<p>Nothing <b>presentational</b> here";
    assert_eq!(convert_page(plain, &MarkupOptions::default()).html, plain);
}

#[test]
fn pre_keeps_its_leading_newline() {
    let (_, html, _) = site("<center>x</center><pre>\n\nkept</pre>");
    assert!(
        html.contains("<pre>\n\nkept</pre>") || html.contains("<pre>\n\n\nkept</pre>"),
        "{html}"
    );
    let again = crate::html::parse(&html);
    let pre = crate::html::edit::find(&again.document, "pre").unwrap();
    assert_eq!(crate::html::edit::text_of(&pre), "\nkept");
}

#[test]
fn class_names_do_not_depend_on_page_order() {
    let a = convert_page(
        "<center>a</center><font color=red>b</font>",
        &MarkupOptions::default(),
    );
    let b = convert_page(
        "<u>c</u><font color=blue>d</font>",
        &MarkupOptions::default(),
    );
    let one = build_sheet([&a, &b]).unwrap();
    let two = build_sheet([&b, &a]).unwrap();
    assert_eq!(one.css, two.css);
    assert_eq!(one.page_html(&a), two.page_html(&a));
}

#[test]
fn pages_with_author_css_are_left_alone_with_a_reason() {
    let text = "<style>font{color:blue}</style><font color=red>x</font>";
    let page = convert_page(text, &MarkupOptions::default());
    assert_eq!(page.html, text);
    assert_eq!(page.left_as_is, vec![("font".into(), "author-css".into())]);
}

#[test]
fn background_urls_are_rebased_to_the_site_root_for_the_shared_sheet() {
    let opts = MarkupOptions {
        page_path: "a/b/page.html".into(),
        ..MarkupOptions::default()
    };
    let page = convert_page("<body background=\"../img/bg.gif\">x", &opts);
    let sheet = build_sheet([&page]).unwrap();
    assert!(sheet.css.contains("a/img/bg.gif"), "{}", sheet.css);
    assert!(sheet.page_html(&page).contains("href=../../webdiet.css"));
}

#[test]
fn inline_and_per_page_modes_are_final_without_a_site_sheet() {
    let text = "<body bgcolor=white><center>x</center>";
    let inline = convert_page(
        text,
        &MarkupOptions {
            css: CssMode::InlineStyle,
            ..MarkupOptions::default()
        },
    );
    assert!(
        inline.html.contains("style=text-align:-webkit-center"),
        "{}",
        inline.html
    );
    let per_page = convert_page(
        text,
        &MarkupOptions {
            css: CssMode::PerPage,
            ..MarkupOptions::default()
        },
    );
    assert!(per_page.html.contains("<style>"), "{}", per_page.html);
    assert!(!per_page.html.contains(SLOT_OPEN));
}

#[test]
fn atomic_classes_give_each_declaration_its_own_shared_rule() {
    let text =
        "<table><tr><td valign=top bgcolor=white>a</td><td valign=top width=10>b</td></tr></table>";
    let combined = convert_page(text, &MarkupOptions::default());
    assert_eq!(combined.rules.len(), 2, "{:?}", combined.rules);
    let opts = MarkupOptions {
        atomic_classes: true,
        ..MarkupOptions::default()
    };
    let atomic = convert_page(text, &opts);
    // vertical-align:top is one rule used by both cells.
    assert_eq!(atomic.rules.len(), 3, "{:?}", atomic.rules);
    let sheet = build_sheet([&atomic]).unwrap();
    let html = sheet.page_html(&atomic);
    assert_eq!(html.matches("class=\"").count(), 2, "{html}");
    assert_eq!(
        sheet.css.matches("vertical-align:top").count(),
        1,
        "{}",
        sheet.css
    );
}

#[test]
fn nowrap_with_a_fixed_width_gets_that_minimum_width_in_quirks_mode_only() {
    let cell = "<table><tr><td width=120 nowrap>x</td><td nowrap width=\"50%\">y</td></tr></table>";
    let quirks = convert_page(cell, &MarkupOptions::default());
    let css = build_sheet([&quirks]).unwrap().css;
    assert!(css.contains("min-width:120px"), "{css}");
    assert!(!css.contains("min-width:50%"), "{css}");
    assert!(quirks.left_as_is.is_empty(), "{:?}", quirks.left_as_is);
    let standards = convert_page(&format!("<!DOCTYPE html>{cell}"), &MarkupOptions::default());
    let css = build_sheet([&standards]).unwrap().css;
    assert!(!css.contains("min-width"), "{css}");
}

#[test]
fn attribute_order_does_not_change_hr_or_table_results() {
    let a = convert_page(
        "<hr color=red noshade><table border=2 bordercolor=red><tr><td>x</table>",
        &MarkupOptions::default(),
    );
    let b = convert_page(
        "<hr noshade color=red><table bordercolor=red border=2><tr><td>x</table>",
        &MarkupOptions::default(),
    );
    assert_eq!(a.rules, b.rules);
    let css = build_sheet([&a]).unwrap().css;
    assert!(!css.contains("gray"), "{css}");
    assert!(!css.contains("outset") && !css.contains("inset"), "{css}");
}

#[test]
fn attributes_chromium_ignores_are_dropped_without_css() {
    let text = "<table><tr bordercolor=red><td bordercolor=blue>x</td></tr></table>\
                <input type=text align=right><iframe hspace=9 vspace=9></iframe>\
                <table><col align=right valign=top><tr><td>y</td></tr></table>";
    let page = convert_page(text, &MarkupOptions::default());
    assert!(page.changed);
    assert!(page.rules.is_empty(), "{:?}", page.rules);
    assert!(page.left_as_is.is_empty(), "{:?}", page.left_as_is);
    assert!(
        page.constructs_after.is_empty(),
        "{:?}",
        page.constructs_after
    );
}

#[test]
fn tables_with_frame_or_rules_keep_border_and_bordercolor() {
    let page = convert_page(
        "<table border=1 bordercolor=red rules=all><tr><td>x</table>",
        &MarkupOptions::default(),
    );
    let mut left = page.left_as_is.clone();
    left.sort();
    assert_eq!(
        left,
        vec![
            ("border".to_string(), "table-frame-rules".to_string()),
            ("bordercolor".to_string(), "table-frame-rules".to_string()),
        ]
    );
}

#[test]
fn a_spacer_becomes_a_sized_span_unless_something_may_still_read_the_image() {
    use crate::image::{Fill, ImageFacts};
    let facts = ImageFacts {
        width: 1,
        height: 1,
        frames: 1,
        colors: 1,
        fill: Some(Fill::Transparent),
    };
    let opts = MarkupOptions {
        images: [("s.gif".to_string(), facts)].into(),
        ..MarkupOptions::default()
    };
    let page = convert_page(
        "<p><img src=s.gif width=7 height=3 alt=\"\">\
         <picture><source srcset=big.png><img src=s.gif width=7 height=3></picture>\
         <img src=s.gif width=7 height=3 onclick=go()>",
        &opts,
    );
    let sheet = build_sheet([&page]).unwrap();
    let html = sheet.page_html(&page);
    assert_eq!(html.matches("<img").count(), 2, "{html}");
    assert!(
        sheet
            .css
            .contains("width:7px;height:3px;display:inline-block"),
        "{}",
        sheet.css
    );
    let mut reasons: Vec<&str> = page.left_as_is.iter().map(|(_, r)| r.as_str()).collect();
    reasons.sort();
    assert_eq!(reasons, ["spacer-attributes", "spacer-in-picture"]);
}

#[test]
fn xhtml_pages_are_left_alone_because_browsers_parse_them_as_xml() {
    let opts = MarkupOptions {
        page_path: "doc/page.xhtml".to_string(),
        ..MarkupOptions::default()
    };
    let text = "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><u>x</u></body></html>";
    let page = convert_page(text, &opts);
    assert!(!page.changed);
    assert_eq!(page.html, text);
    assert_eq!(
        page.left_as_is,
        [("u".to_string(), "xhtml-syntax".to_string())]
    );
}

#[test]
fn an_ascii_page_stays_ascii_so_any_charset_guess_reads_its_entities_the_same() {
    let (_, html, _) = site("<center><a title=\"Fran&ccedil;ais\">Fran&ccedil;ais &eacute;t&eacute;&nbsp;&#8212;</a></center>");
    assert!(html.is_ascii(), "{html}");
    assert!(
        html.contains("Fran&#231;ais &#233;t&#233;&nbsp;&#8212;"),
        "{html}"
    );
    assert!(html.contains("title=Fran&#231;ais"), "{html}");
}

#[test]
fn a_page_with_non_ascii_text_and_no_declared_charset_is_left_alone() {
    let opts = MarkupOptions {
        charset_declared: false,
        ..MarkupOptions::default()
    };
    let text = "<center>caf\u{e9}</center>";
    let page = convert_page(text, &opts);
    assert!(!page.changed);
    assert_eq!(
        page.left_as_is,
        [("center".to_string(), "charset-undeclared".to_string())]
    );
    // ASCII pages are safe either way.
    assert!(convert_page("<center>cafe</center>", &opts).changed);
}
