//! The reference extractor finds what a browser fetches or follows, and nothing else.

use super::*;

fn kinds_and_values(html: &str) -> Vec<(RefKind, String)> {
    references(html)
        .refs
        .into_iter()
        .map(|r| (r.kind, r.value))
        .collect()
}

#[test]
fn finds_every_kind_of_reference_in_a_1996_page() {
    let html = r##"<HTML><HEAD><BASE HREF="/root/">
<LINK REL="stylesheet" HREF="site.css"><LINK REL="shortcut icon" HREF="favicon.ico">
<LINK REL=next HREF="p2.html"><SCRIPT SRC="menu.js"></SCRIPT>
<STYLE>@import "more.css"; td { background: url(cell.gif) }</STYLE></HEAD>
<BODY BACKGROUND="bg.gif"><TABLE BACKGROUND="t.gif"><TR><TD BACKGROUND="td.gif">
<IMG SRC="a.gif" LOWSRC="a-lo.gif" SRCSET="a2.gif 2x, a3.gif 3x" USEMAP="#m">
<MAP NAME="m"><AREA SHAPE=rect COORDS="0,0,1,1" HREF="area.html"></MAP>
<FORM><INPUT TYPE=image SRC="go.gif"><INPUT TYPE=text SRC="not-an-image.gif"></FORM>
<A HREF="page.html"><SPAN STYLE="background-image:url(span.gif)">x</SPAN></A>
<IFRAME SRC="frame.html"></IFRAME><OBJECT DATA="movie.swf"></OBJECT><EMBED SRC="tune.mid">
</TD></TR></TABLE></BODY></HTML>"##;
    let refs = references(html);
    assert_eq!(refs.base_href.as_deref(), Some("/root/"));
    let got = kinds_and_values(html);
    let expected = [
        (RefKind::Stylesheet, "site.css"),
        (RefKind::Icon, "favicon.ico"),
        (RefKind::Link, "p2.html"),
        (RefKind::Script, "menu.js"),
        (RefKind::CssImport, "more.css"),
        (RefKind::CssUrl, "cell.gif"),
        (RefKind::Background, "bg.gif"),
        (RefKind::Background, "t.gif"),
        (RefKind::Background, "td.gif"),
        (RefKind::Img, "a.gif"),
        (RefKind::Lowsrc, "a-lo.gif"),
        (RefKind::Srcset, "a2.gif"),
        (RefKind::Srcset, "a3.gif"),
        (RefKind::Area, "area.html"),
        (RefKind::InputImage, "go.gif"),
        (RefKind::Anchor, "page.html"),
        (RefKind::CssUrl, "span.gif"),
        (RefKind::Iframe, "frame.html"),
        (RefKind::Object, "movie.swf"),
        (RefKind::Embed, "tune.mid"),
    ];
    let expected: Vec<(RefKind, String)> =
        expected.iter().map(|(k, v)| (*k, v.to_string())).collect();
    assert_eq!(got, expected);
}

#[test]
fn framesets_are_found() {
    let html = r#"<html><frameset cols="20%,*"><frame src="nav.html"><frame src="main.html"></frameset></html>"#;
    assert_eq!(
        kinds_and_values(html),
        vec![
            (RefKind::Frame, "nav.html".to_string()),
            (RefKind::Frame, "main.html".to_string())
        ]
    );
}

#[test]
fn text_that_only_looks_like_markup_is_not_a_reference() {
    let html = r#"<p>Write &lt;img src="x.gif"&gt; to show it.</p><!-- <img src="c.gif"> -->
<script>document.write('<img src="js.gif">')</script><textarea><img src="t.gif"></textarea>"#;
    assert!(kinds_and_values(html).is_empty());
}

#[test]
fn empty_image_sources_are_not_fetches() {
    assert!(kinds_and_values(r#"<img src=""><img src="  ">"#).is_empty());
}

#[test]
fn meta_refresh_target_is_a_reference() {
    let html = r#"<meta http-equiv="Refresh" content="0; URL='moved.html'">"#;
    assert_eq!(
        kinds_and_values(html),
        vec![(RefKind::Refresh, "moved.html".to_string())]
    );
}

#[test]
fn srcset_candidates_with_commas_and_descriptors() {
    assert_eq!(
        srcset_urls(" a.gif 1x,b.gif  2x , c.gif"),
        vec!["a.gif", "b.gif", "c.gif"]
    );
    // The standard reads up to whitespace, so a comma without a space is part of the URL.
    assert_eq!(srcset_urls("a.gif,b.gif"), vec!["a.gif,b.gif"]);
}

#[test]
fn doctype_decides_quirks_mode() {
    assert!(references("<html><body>x").quirks);
    assert!(references(r#"<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><p>x"#).quirks);
    assert!(!references("<!DOCTYPE html><p>x").quirks);
}

#[test]
fn uppercase_and_unquoted_attributes_are_read() {
    assert_eq!(
        kinds_and_values("<IMG SRC=Logo.GIF>"),
        vec![(RefKind::Img, "Logo.GIF".to_string())]
    );
}

/// The page after its edits, as text.
fn edited(page: Page<'_>, bytes: &[u8]) -> String {
    let edits = page.edits().unwrap();
    assert!(page.proves(&edits), "the edits must give the edited tree");
    String::from_utf8(page::render(
        bytes,
        encoding_rs::UTF_8,
        &edits,
        &|text, out| out.push_str(text),
    ))
    .unwrap()
}

#[test]
fn a_changed_start_tag_keeps_what_it_did_not_change_byte_for_byte() {
    let bytes =
        b"<TABLE><TR><TD  Align='left' BGCOLOR=red nowrap\tID=\"c\">x&amp;y</TD></TR></TABLE>";
    let page = Page::parse(bytes, encoding_rs::UTF_8).unwrap();
    let td = edit::find(&page.document(), "td").unwrap();
    edit::remove_attr(&td, "bgcolor");
    edit::set_attr(&td, "class", "a b");
    assert_eq!(
        edited(page, bytes),
        "<TABLE><TR><TD  Align='left' nowrap\tID=\"c\" class=\"a b\">x&amp;y</TD></TR></TABLE>"
    );
}

#[test]
fn a_renamed_element_changes_its_start_and_end_tag_only() {
    let bytes = b"<P>a <FONT COLOR=red>b <B>c</B></FONT > d";
    let page = Page::parse(bytes, encoding_rs::UTF_8).unwrap();
    let font = edit::find(&page.document(), "font").unwrap();
    edit::remove_attr(&font, "color");
    let span = page.rename(&font, "span");
    edit::set_attr(&span, "class", "r");
    assert_eq!(
        edited(page, bytes),
        "<P>a <span class=r>b <B>c</B></span > d"
    );
}

#[test]
fn an_edit_that_does_not_give_the_edited_tree_is_not_proven() {
    let bytes = b"<p><font color=red>a</font>b";
    let converted = || {
        let page = Page::parse(bytes, encoding_rs::UTF_8).unwrap();
        let font = edit::find(&page.document(), "font").unwrap();
        edit::remove_attr(&font, "color");
        page.rename(&font, "span");
        page
    };
    let page = converted();
    let mut edits = page.edits().unwrap();
    assert!(page.proves(&edits));
    // Leave the end tag as it was: `</font>` no longer closes the span.
    edits.retain(|e| !bytes[e.span()].starts_with(b"</"));
    assert!(!converted().proves(&edits));
}

#[test]
fn the_parser_s_copies_of_a_font_make_every_font_of_the_page_misnested() {
    let bytes = b"<font color=red><p>a<p>b</font><font size=2>ok</font>";
    let page = Page::parse(bytes, encoding_rs::UTF_8).unwrap();
    let fonts: Vec<_> = edit::elements(&page.document())
        .into_iter()
        .filter(|e| edit::is(e, "font"))
        .collect();
    assert!(
        fonts.len() >= 3,
        "the adoption agency copies the first font"
    );
    assert!(fonts.iter().all(|f| page.is_misnested(f)));
    let nested = Page::parse(b"<p><font color=red>a</font><u>b</u>", encoding_rs::UTF_8).unwrap();
    assert!(edit::elements(&nested.document())
        .iter()
        .all(|e| !nested.is_misnested(e)));
}

#[test]
fn references_of_a_page_too_deep_to_build_come_from_its_start_tags() {
    let depth = MAX_DEPTH as usize + 1;
    let page = format!(
        "{}<img src=deep.gif><style>p{{background:url(bg.gif)}}</style>{}",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    assert!(parse(&page).is_err());
    let refs = references(&page);
    assert!(refs.too_deep);
    assert_eq!(
        refs.refs
            .iter()
            .map(|r| (r.kind, r.value.as_str()))
            .collect::<Vec<_>>(),
        [(RefKind::Img, "deep.gif"), (RefKind::CssUrl, "bg.gif")]
    );
    // html and body come first: the image sits at depth 512.
    let shallow = "<div>".repeat(MAX_DEPTH as usize - 3);
    assert!(!references(&format!("{shallow}<img src=a.gif>")).too_deep);
}

/// Issue 24, item 7: the source map of a large page grows by chunks, so what it holds beyond
/// its tokens and elements stays under one chunk each, whatever the page's size (a doubling
/// list held up to twice its tokens: 70,000 tokens in room for 131,072).
#[test]
fn the_source_map_of_a_large_page_holds_less_than_a_chunk_of_slack() {
    let page = "<p><b>x</b></p>".repeat(12_000);
    let page = Page::parse(page.as_bytes(), encoding_rs::UTF_8).unwrap();
    let (tokens, created) = page.log_sizes();
    assert!(
        tokens.0 > 60_000 && created.0 > 24_000,
        "{tokens:?} {created:?}"
    );
    for (len, capacity) in [tokens, created] {
        assert!(
            capacity >= len && capacity - len < 4096,
            "{len} in {capacity}"
        );
    }
}

#[test]
fn the_base_href_shortcut_agrees_with_the_parse_and_parses_only_pages_with_a_base_tag() {
    for page in [
        "<p>no base here</p>",
        "<HEAD><BASE HREF=/root/></HEAD>",
        "<base target=_top><base href=second/>",
        "<!-- <base href=in-a-comment/> --><p>x",
        "<script>document.write('<base href=scripted/>')</script>",
        "<template><base href=in-a-template/></template>",
        "<svg><base href=in-svg/></svg>",
        "<basefont size=3><p>a basefont is no base",
    ] {
        assert_eq!(base_href(page), references(page).base_href, "{page}");
    }
    assert!(!lex::may_have_tag(b"<p>no base</p>", b"base"));
    assert!(lex::may_have_tag(b"x <BaSe href=a>", b"base"));
    assert!(
        !lex::may_have_tag(b"a < base", b"base"),
        "`< base` is text, not a tag"
    );
    let names: [&[u8]; 3] = [b"im", b"script", b"base"];
    assert!(lex::may_have_any_tag(b"<p>x<IMAGE src=a>", &names));
    assert!(lex::may_have_any_tag(b"<p>x</p><script>", &names));
    assert!(!lex::may_have_any_tag(
        b"<p>no such tag: < img, base</p>",
        &names
    ));
}

/// `RcDom`'s tree of a page, the oracle of the compact tree: html5ever's own sink, without the
/// depth limit.
fn rcdom(text: &str) -> markup5ever_rcdom::RcDom {
    use html5ever::tendril::TendrilSink;
    html5ever::parse_document(markup5ever_rcdom::RcDom::default(), Default::default()).one(text)
}

/// Whether an element of `dom` sits deeper than [`MAX_DEPTH`] elements (where the parses stop).
fn rcdom_too_deep(dom: &markup5ever_rcdom::RcDom) -> bool {
    use markup5ever_rcdom::NodeData;
    let mut stack = vec![(dom.document.clone(), 0u32)];
    while let Some((node, depth)) = stack.pop() {
        let depth = depth + u32::from(matches!(node.data, NodeData::Element { .. }));
        if depth > MAX_DEPTH {
            return true;
        }
        stack.extend(node.children.borrow().iter().map(|c| (c.clone(), depth)));
    }
    false
}

/// The references as read from `RcDom`'s tree, the way they were read before the compact tree
/// ([`arena`]) replaced it: the oracle of the test below.
fn rcdom_references(text: &str) -> PageRefs {
    use markup5ever_rcdom::NodeData;
    let dom = rcdom(text);
    if rcdom_too_deep(&dom) {
        return token_references(text);
    }
    let mut out = PageRefs {
        quirks: dom.quirks_mode.get() != html5ever::tree_builder::QuirksMode::NoQuirks,
        ..PageRefs::default()
    };
    let mut stack = vec![dom.document.clone()];
    while let Some(node) = stack.pop() {
        if let NodeData::Element {
            name,
            attrs,
            template_contents,
            ..
        } = &node.data
        {
            let style = (&*name.local == "style").then(|| {
                let mut text = String::new();
                for child in node.children.borrow().iter() {
                    if let NodeData::Text { contents } = &child.data {
                        text.push_str(&contents.borrow());
                    }
                }
                text
            });
            parsed_element_references(&name.local, &attrs.borrow(), style.as_deref(), &mut out);
            if let Some(contents) = template_contents.borrow().as_ref() {
                stack.extend(contents.children.borrow().iter().rev().cloned());
            }
        }
        stack.extend(node.children.borrow().iter().rev().cloned());
    }
    out
}

/// Pages whose trees the parser builds in unusual ways: foster parenting, the adoption agency,
/// templates, merged `<body>` attributes, foreign content, framesets, text joined across
/// removed nodes, a late doctype, nesting past the depth limit.
const TRICKY_PAGES: &[&str] = &[
    "<table><tr><td>a</td></tr>fostered <img src=f.gif> text<style>td{background:url(s.gif)}</style></table>",
    "<b><p>one</b>two<i>three<p>four</i>five<a href=x.html><div>six</a>seven</div>",
    "<template><img src=t.gif><template><a href=inner.html>i</a></template></template><img src=o.gif>",
    "<body background=one.gif>text<body background=two.gif style='color:red' bgcolor=red>",
    "<svg><style>@import 'svg.css';</style><image href=i.png /><a href=s.html>x</a></svg><math><annotation-xml encoding=text/html><img src=m.gif></annotation-xml></math>",
    "<frameset><frame src=a.html><noframes><img src=n.gif></noframes></frameset>",
    "<select><button><selectedcontent></selectedcontent></button><option selected><img src=o.gif>x</option></select>",
    "text<!--c-->more<table>x<!--d-->y<tr>z</table><p>a<!-- -->b",
    "<p>late</p><!DOCTYPE html><html lang=x><head><base href=/b/><meta http-equiv=refresh content='0;url=r.html'></head>",
    "<table><caption>c<table><tr><td><font><center>x</font></center></table></caption></table><font color=red><table><tr><td>y</table>z</font>",
    "<a href=1><a href=2><b><a href=3>x</b></a>",
    "<ul><li>one<li>two<dd>three<p>four<plaintext><img src=p.gif></ul>",
];

#[test]
fn the_compact_tree_reads_every_page_as_rcdom_does() {
    let deep = "<div>".repeat(MAX_DEPTH as usize + 10) + "<img src=deep.gif>";
    let mut pages: Vec<(String, String)> = TRICKY_PAGES
        .iter()
        .chain([&deep.as_str()])
        .map(|p| (p.chars().take(40).collect(), p.to_string()))
        .collect();
    if let Some(shared) = crate::testing::shared_dir() {
        for entry in walkdir::WalkDir::new(shared.join("corpora")).sort_by_file_name() {
            let entry = entry.expect("the corpora are readable");
            let name = entry.file_name().to_string_lossy().to_ascii_lowercase();
            if entry.file_type().is_file() && (name.ends_with(".html") || name.ends_with(".htm")) {
                let bytes = std::fs::read(entry.path()).expect("a corpus page is readable");
                let text = crate::site::charset::decode(&bytes).text;
                pages.push((entry.path().display().to_string(), text));
            }
        }
        assert!(pages.len() > 1000, "the corpora hold over 1,000 pages");
    } else {
        crate::testing::skip("*");
    }
    for (name, text) in &pages {
        let (a, b) = (references(text), rcdom_references(text));
        assert_eq!(a.refs, b.refs, "{name}");
        assert_eq!(
            (&a.base_href, a.quirks, a.too_deep),
            (&b.base_href, b.quirks, b.too_deep),
            "{name}"
        );
        let dom = rcdom(text);
        // The editable page's parse (with its source map) builds the same tree too.
        let page = Page::parse(text.as_bytes(), encoding_rs::UTF_8);
        match (
            rcdom_too_deep(&dom),
            parse_tree(text, arena::KeepText::All),
            page,
        ) {
            (false, Ok(tree), Ok(page)) => {
                let expected = compare::digest(&dom.document);
                assert_eq!(expected, compare::digest_tree(&tree), "{name}");
                assert_eq!(expected, page.digest(), "{name}");
                assert_eq!(dom.quirks_mode.get(), tree.quirks_mode(), "{name}");
            }
            (true, Err(TooDeep), Err(Unparsed::TooDeep)) => {}
            _ => panic!("{name}: one tree is too deep, another not"),
        }
    }
}
