use super::*;

fn convert(text: &str, opts: &MarkupOptions) -> PageMarkup {
    convert_page(text.as_bytes(), opts)
}

/// The page as written by the pass: `text` with the page's edits (names from `sheet`).
fn output(page: &PageMarkup, text: &str, sheet: Option<&SiteSheet>) -> String {
    String::from_utf8(page.bytes(text.as_bytes(), sheet.map(|s| &s.names))).unwrap()
}

fn site(text: &str) -> (PageMarkup, String, SiteSheet) {
    let page = convert(text, &MarkupOptions::default());
    let sheet = build_sheet([&page]).unwrap();
    let html = output(&page, text, Some(&sheet));
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
    let page = convert(plain, &MarkupOptions::default());
    assert!(!page.changed && page.edits.is_empty());
    assert_eq!(output(&page, plain, None), plain);
}

#[test]
fn everything_but_the_edited_tags_keeps_its_bytes() {
    let text = "<HTML><Head><TITLE>t</TITLE></Head>\n<BODY>\n<CENTER class='x' \
                ID=\"a\">caf&eacute; &amp; <B>Tea</B>&nbsp;&#8212;</CENTER>\n\
                <pre>\n\nkept</pre><table><tr><td>x</table></BODY>";
    let (page, html, _) = site(text);
    assert!(page.changed);
    // The class attribute is written anew (the page's own value first); the id stays as it was.
    let class = html
        .split("class=\"x ")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let expected = text
        .replace("</Head>", "<link rel=stylesheet href=webdiet.css></Head>")
        .replace("<CENTER class='x'", &format!("<div class=\"x {class}\""))
        .replace("</CENTER>", "</div>");
    assert_eq!(html, expected);
}

#[test]
fn class_names_do_not_depend_on_page_order() {
    let text_a = "<center>a</center><font color=red>b</font>";
    let a = convert(text_a, &MarkupOptions::default());
    let b = convert(
        "<u>c</u><font color=blue>d</font>",
        &MarkupOptions::default(),
    );
    let one = build_sheet([&a, &b]).unwrap();
    let two = build_sheet([&b, &a]).unwrap();
    assert_eq!(one.css, two.css);
    assert_eq!(
        output(&a, text_a, Some(&one)),
        output(&a, text_a, Some(&two))
    );
}

#[test]
fn pages_with_author_css_are_left_alone_with_a_reason() {
    let text = "<style>font{color:blue}</style><font color=red>x</font>";
    let page = convert(text, &MarkupOptions::default());
    assert_eq!(output(&page, text, None), text);
    assert_eq!(
        page.left_as_is.to_vec(),
        vec![("font".into(), "author-css".into())]
    );
}

#[test]
fn background_urls_are_rebased_to_the_site_root_for_the_shared_sheet() {
    let opts = MarkupOptions {
        page_path: "a/b/page.html".into(),
        ..MarkupOptions::default()
    };
    let text = "<body background=\"../img/bg.gif\">x";
    let page = convert(text, &opts);
    let sheet = build_sheet([&page]).unwrap();
    assert!(sheet.css.contains("a/img/bg.gif"), "{}", sheet.css);
    assert!(output(&page, text, Some(&sheet)).contains("href=../../webdiet.css"));
}

#[test]
fn inline_and_per_page_modes_are_final_without_a_site_sheet() {
    let text = "<body bgcolor=white><center>x</center>";
    let inline = convert(
        text,
        &MarkupOptions {
            css: CssMode::InlineStyle,
            ..MarkupOptions::default()
        },
    );
    let html = output(&inline, text, None);
    assert!(html.contains("style=text-align:-webkit-center"), "{html}");
    let per_page = convert(
        text,
        &MarkupOptions {
            css: CssMode::PerPage,
            ..MarkupOptions::default()
        },
    );
    let html = output(&per_page, text, None);
    assert!(html.contains("<style>"), "{html}");
    assert!(
        !html.contains(SLOT_OPEN) && !html.contains("&#57344;"),
        "{html}"
    );
}

#[test]
fn atomic_classes_give_each_declaration_its_own_shared_rule() {
    let text =
        "<table><tr><td valign=top bgcolor=white>a</td><td valign=top width=10>b</td></tr></table>";
    let combined = convert(text, &MarkupOptions::default());
    assert_eq!(combined.rules.len(), 2, "{:?}", combined.rules);
    let opts = MarkupOptions {
        atomic_classes: true,
        ..MarkupOptions::default()
    };
    let atomic = convert(text, &opts);
    // vertical-align:top is one rule used by both cells.
    assert_eq!(atomic.rules.len(), 3, "{:?}", atomic.rules);
    let sheet = build_sheet([&atomic]).unwrap();
    let html = output(&atomic, text, Some(&sheet));
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
    let quirks = convert(cell, &MarkupOptions::default());
    let css = build_sheet([&quirks]).unwrap().css;
    assert!(css.contains("min-width:120px"), "{css}");
    assert!(!css.contains("min-width:50%"), "{css}");
    assert!(quirks.left_as_is.is_empty(), "{:?}", quirks.left_as_is);
    let standards = convert(&format!("<!DOCTYPE html>{cell}"), &MarkupOptions::default());
    let css = build_sheet([&standards]).unwrap().css;
    assert!(!css.contains("min-width"), "{css}");
}

#[test]
fn attribute_order_does_not_change_hr_or_table_results() {
    let a = convert(
        "<hr color=red noshade><table border=2 bordercolor=red><tr><td>x</table>",
        &MarkupOptions::default(),
    );
    let b = convert(
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
    let page = convert(text, &MarkupOptions::default());
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
    let page = convert(
        "<table border=1 bordercolor=red rules=all><tr><td>x</table>",
        &MarkupOptions::default(),
    );
    let left = page.left_as_is.to_vec();
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
    let text = "<p><img src=s.gif width=7 height=3 alt=\"\">\
         <picture><source srcset=big.png><img src=s.gif width=7 height=3></picture>\
         <img src=s.gif width=7 height=3 onclick=go()>";
    let page = convert(text, &opts);
    let sheet = build_sheet([&page]).unwrap();
    let html = output(&page, text, Some(&sheet));
    assert!(html.contains("<p><span class="), "{html}");
    assert!(html.contains("></span><picture>"), "{html}");
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
    let page = convert(text, &opts);
    assert!(!page.changed);
    assert_eq!(output(&page, text, None), text);
    assert_eq!(
        page.left_as_is.to_vec(),
        [("u".to_string(), "xhtml-syntax".to_string())]
    );
}

#[test]
fn entities_and_non_ascii_text_keep_their_bytes_whatever_the_charset_declaration() {
    // Declared: an undeclared UTF-8 page is read as windows-1252 (`site::charset`).
    let text = "<meta charset=utf-8><center><a title=\"Fran&ccedil;ais\">Fran&ccedil;ais \
                &eacute;t&eacute;&nbsp;&#8212; caf\u{e9}</a></center>";
    let (page, html, _) = site(text);
    assert!(page.changed);
    assert!(
        html.contains(&text[28..text.len() - 9]),
        "text and the link kept as written: {html}"
    );
}

#[test]
fn a_misnested_font_keeps_its_name_and_takes_the_class() {
    // The parser copies the font into the second paragraph (the adoption agency), and again
    // after the table; a span would not be copied.
    let text = "<font color=red><p>one<p>two</font> three<p><font size=2>a<b>b</font>c</b>";
    let (page, html, sheet) = site(text);
    assert!(page.changed, "{:?}", page.left_as_is);
    assert!(
        !html.contains("color=red") && !html.contains("size=2"),
        "{html}"
    );
    assert_eq!(html.matches("<font class=").count(), 2, "{html}");
    assert!(sheet.css.contains("color:red"), "{}", sheet.css);
    assert_eq!(page.constructs_after.get("font"), None);
    // Well-nested fonts in the same page as misnested ones of another name still become spans.
    let (_, html, _) = site("<u>a<p>b</u><font color=red>x</font>");
    assert!(
        html.contains("<span class=") && html.contains("<u>"),
        "{html}"
    );
}

#[test]
fn an_end_tag_the_parser_ignored_is_not_taken_for_the_element_s_own() {
    // The first </CENTER> is inside a table row, out of scope: the parser ignores it, and the
    // second closes the centre.
    let text = "<CENTER><TABLE><TR><TD>a</TD></CENTER><TD>b</TD></TR></TABLE></CENTER><p>after";
    let (page, html, _) = site(text);
    assert!(page.changed, "{:?}", page.left_as_is);
    assert!(html.contains("<TD>a</TD></CENTER><TD>"), "{html}");
    assert!(html.contains("</TABLE></div><p>after"), "{html}");
}

#[test]
fn attributes_of_a_body_tag_after_an_implied_body_are_edited_in_that_tag() {
    // `<nextid>` in the head implies the body; the <BODY> tag's attributes go onto it.
    let text = "<HTML><HEAD><NEXTID N=z1><TITLE>t</TITLE></HEAD><BODY BGCOLOR=\"#ffffff\">x</BODY>";
    let (page, html, _) = site(text);
    assert!(page.changed, "{:?}", page.left_as_is);
    assert!(html.contains("<BODY class="), "{html}");
    assert!(!html.contains("BGCOLOR"), "{html}");
}

#[test]
fn a_head_added_to_a_page_without_one_goes_where_the_parser_ends_it() {
    for (text, before) in [
        ("<center>x</center>", "<div"),
        ("<title>t</title>\n  Hello <center>x</center>", "Hello"),
        ("<!DOCTYPE html><html><body bgcolor=red>x", "<body"),
    ] {
        let (page, html, _) = site(text);
        assert!(page.changed, "{text}: {:?}", page.left_as_is);
        let link = html.find("<link rel=stylesheet").unwrap();
        assert!(html[link..].contains(before), "{text} → {html}");
    }
}

#[test]
fn a_page_nested_deeper_than_the_parser_limit_is_left_with_its_constructs_counted() {
    let depth = crate::html::MAX_DEPTH as usize + 10;
    let text = format!(
        "{}x{}",
        "<font color=red>".repeat(depth),
        "</font>".repeat(depth)
    );
    let page = convert(&text, &MarkupOptions::default());
    assert!(!page.changed);
    assert_eq!(page.constructs_before.get("font"), Some(&depth));
    assert!(page.left_as_is.iter().all(|(_, r)| r == "too-deep"));
    assert_eq!(page.left_as_is.len(), depth);
}

#[test]
fn the_shared_sheet_is_ascii_and_utf16_pages_get_a_byte_order_mark_on_it() {
    let text = "<body background=\"caf\u{e9}.gif\"><center>x</center>";
    let page = convert(text, &MarkupOptions::default());
    let sheet = build_sheet([&page]).unwrap();
    assert!(sheet.css.is_ascii(), "{}", sheet.css);
    assert!(sheet.css.contains("caf\\e9 .gif"), "{}", sheet.css);
    // A sheet without a BOM or @charset is decoded in the linking page's encoding.
    let mut utf16 = vec![0xff, 0xfe];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let opts = MarkupOptions {
        encoding: encoding_rs::UTF_16LE,
        ..MarkupOptions::default()
    };
    let page16 = convert_page(&utf16, &opts);
    assert!(page16.changed, "{:?}", page16.left_as_is);
    let sheet = build_sheet([&page, &page16]).unwrap();
    assert!(sheet.css.starts_with('\u{feff}'));
}

#[test]
fn the_shared_sheet_s_link_is_written_against_the_page_s_base() {
    let page = |base: &str| {
        format!(
            "<html><head><base href=\"{base}\"></head><body bgcolor=\"#ffffff\">\
             <font color=red>Hi</font></body></html>"
        )
    };
    let opts = MarkupOptions {
        page_path: "doc/page.html".to_string(),
        ..MarkupOptions::default()
    };
    // `doc/sub/` is two directories below the root: the link climbs two.
    let text = page("sub/");
    let converted = convert(&text, &opts);
    assert!(converted.changed);
    let html = output(&converted, &text, None);
    assert!(html.contains("href=../../webdiet.css"), "{html}");
    // A base the site's layout cannot place: left as written, with the reason.
    for base in ["http://example.com/x/", "/docs/", "../../../", "a//b/"] {
        let text = page(base);
        let converted = convert(&text, &opts);
        assert!(!converted.changed, "{base}");
        assert_eq!(output(&converted, &text, None), text);
        assert!(
            converted
                .left_as_is
                .iter()
                .all(|(_, why)| why == "base-href"),
            "{base}: {:?}",
            converted.left_as_is
        );
    }
}

#[test]
fn a_base_directory_is_the_page_s_unless_its_base_names_another_inside_the_site() {
    use super::convert::base_dir;
    assert_eq!(base_dir("a/b.html", None).as_deref(), Some("a/"));
    assert_eq!(base_dir("b.html", Some("")).as_deref(), Some(""));
    assert_eq!(
        base_dir("a/b.html", Some("sub/")).as_deref(),
        Some("a/sub/")
    );
    assert_eq!(
        base_dir("a/b.html", Some("sub/x.html?q#f")).as_deref(),
        Some("a/sub/")
    );
    assert_eq!(base_dir("a/b.html", Some("../c/")).as_deref(), Some("c/"));
    assert_eq!(base_dir("a/b.html", Some("sub")).as_deref(), Some("a/"));
    assert_eq!(base_dir("b.html", Some("../")), None);
    assert_eq!(base_dir("b.html", Some("https://example.com/")), None);
    assert_eq!(base_dir("b.html", Some("//example.com/")), None);
}

#[test]
fn a_page_without_constructs_is_left_unparsed_but_foreign_content_is_parsed() {
    let page = convert(&"<b>x</b>".repeat(1000), &MarkupOptions::default());
    assert!(!page.changed && page.constructs_before.is_empty());
    // In `<svg>` a `<title>` is not raw text: the lexer would skip the font after it, the
    // parser does not.
    let text = "<svg><title>t<font color=red>x</font></svg><p>y";
    let page = convert(text, &MarkupOptions::default());
    assert_eq!(page.constructs_before.get("font"), Some(&1), "{page:?}");
}
