//! The minifier's specification: one test per way a minifier changed real sheets (issue 41),
//! where white space is read, what the proof rejects, and the charset rules.

use super::*;
use crate::css::proof;

fn min(css: &str) -> String {
    let out = minify_sheet(css.as_bytes()).unwrap_or_else(|why| panic!("{css}: {why}"));
    String::from_utf8(out).unwrap()
}

/// `css` minified must be `expected`, exactly.
fn gives(css: &str, expected: &str) {
    assert_eq!(min(css), expected, "from {css:?}");
}

#[test]
fn white_space_and_comments_go_and_the_rules_stay() {
    gives(
        "/* site */\nbody {\n  color: #FF0000;\n  margin: 0px 0px;\n}\n\n/* links */\n\
         a:hover { text-decoration: underline }\n",
        "/* site */body{color:#FF0000;margin:0px 0px}a:hover{text-decoration:underline}",
    );
}

#[test]
fn escapes_stay_escapes_and_an_ascii_sheet_stays_ascii() {
    // The space after `\4f53` is the escape's own: it stays.
    let out = min(".fa-glass:before { content: \"\\f000\"; }\n.x { font-family: \\5b8b\\4f53 }");
    assert_eq!(
        out,
        ".fa-glass:before{content:\"\\f000\"}.x{font-family:\\5b8b\\4f53 }"
    );
    assert!(out.is_ascii());
}

#[test]
fn legacy_prefixed_gradients_keep_their_direction() {
    gives(
        ".a { background-image: -webkit-linear-gradient(top, #fff 0%, #e0e0e0 100%); }\n\
         .b { background: -webkit-gradient(linear, left top, left bottom, from(red), to(blue)) }",
        ".a{background-image:-webkit-linear-gradient(top,#fff 0%,#e0e0e0 100%)}\
         .b{background:-webkit-gradient(linear,left top,left bottom,from(red),to(blue))}",
    );
}

#[test]
fn vendor_selectors_keep_their_names() {
    gives(
        "input:-ms-input-placeholder { color: #999 }\n::-moz-selection { color: red }\n\
         input::-webkit-input-placeholder { color: #999 }",
        "input:-ms-input-placeholder{color:#999}::-moz-selection{color:red}\
         input::-webkit-input-placeholder{color:#999}",
    );
}

#[test]
fn internet_explorer_hacks_are_kept() {
    gives(
        "@media \\0screen { .a { color: red } }\n\
         html>/**/body .b { color: blue }\n\
         .c { *zoom: 1; _height: 1px; color: red\\9; width: 10px !ie; }\n\
         * html .d { height: 1% }\n*+html .e { min-height: 1% }",
        "@media \\0screen {.a{color:red}}html>/**/body .b{color:blue}\
         .c{*zoom:1;_height:1px;color:red\\9;width:10px !ie}* html .d{height:1%}\
         *+html .e{min-height:1%}",
    );
}

#[test]
fn unquoted_argb_colours_in_ie_filters_stay_as_written() {
    gives(
        ".a { filter: progid:DXImageTransform.Microsoft.gradient(startColorstr=#80000000, \
         endColorstr=#80000000); -ms-filter: \"alpha(opacity=50)\"; }",
        ".a{filter:progid:DXImageTransform.Microsoft.gradient(startColorstr=#80000000,\
         endColorstr=#80000000);-ms-filter:\"alpha(opacity=50)\"}",
    );
}

#[test]
fn fallbacks_keep_their_syntax() {
    gives(
        ".a { color: hsl(0, 100%, 50%); width: calc(10px + 5px); background: #ff000080; \
         color: rgba(0, 0, 0, 0.5); color: red; }",
        ".a{color:hsl(0,100%,50%);width:calc(10px + 5px);background:#ff000080;\
         color:rgba(0,0,0,0.5);color:red}",
    );
}

#[test]
fn numbers_keep_their_digits() {
    gives(
        ".col { width: 33.3333333333%; margin: 0.50em 0px; line-height: 1.428571429; z-index: +1 }",
        ".col{width:33.3333333333%;margin:0.50em 0px;line-height:1.428571429;z-index:+1}",
    );
}

#[test]
fn every_notice_stays_byte_for_byte_and_other_comments_go() {
    let css = "/* Theme, leading */\n/* second leading */\n@import url(a.css);\n\
               /*! first bang */\n.a { color: red }\n/*! second bang */\n\
               /* Copyright 2024 Someone */\n/* SPDX-License-Identifier: MIT */\n\
               /* just a note */\n.b { color: blue /* inline note */ }\n";
    gives(
        css,
        "/* Theme, leading *//* second leading */@import url(a.css);/*! first bang */\
         .a{color:red}/*! second bang *//* Copyright 2024 Someone */\
         /* SPDX-License-Identifier: MIT */.b{color:blue}",
    );
}

#[test]
fn unknown_at_rules_keep_every_byte() {
    gives(
        "@-ms-viewport  {  width : device-width ; }\n@-moz-document url-prefix() { .a { b: c } }\n\
         @import url(\"print.css\")  print ;\n.x { y: z }",
        "@-ms-viewport  {  width : device-width ; }@-moz-document url-prefix() { .a { b: c } }\
         @import url(\"print.css\")  print ;.x{y:z}",
    );
}

#[test]
fn custom_properties_and_expressions_keep_every_byte() {
    gives(
        ".a { --gap:  1px  2px ; --empty: ; width: expression(document.body.clientWidth > 80 ?\n\
         \"80px\" : \"auto\"); }",
        ".a{--gap:  1px  2px ;--empty: ;width:expression(document.body.clientWidth > 80 ?\n\
         \"80px\" : \"auto\")}",
    );
}

#[test]
fn a_space_that_is_a_combinator_or_separates_values_stays() {
    for (css, expected) in [
        ("a b {}", "a b{}"),
        ("a > b {}", "a>b{}"),
        ("a  +  b, c ~ d {}", "a+b,c~d{}"),
        (".x { margin: 0 auto }", ".x{margin:0 auto}"),
        (".x { font: 12px / 1.5 a, b }", ".x{font:12px/1.5 a,b}"),
        (".x { border: 1px solid #000 }", ".x{border:1px solid #000}"),
        (
            ".x { background: url( \"a.gif\" ) no-repeat }",
            ".x{background:url(\"a.gif\") no-repeat}",
        ),
        (
            "@media screen and (min-width: 1px) { a { b: c } }",
            "@media screen and (min-width:1px){a{b:c}}",
        ),
        (
            "@media only screen and (max-width: 9px) , print { a { b: c } }",
            "@media only screen and (max-width:9px),print{a{b:c}}",
        ),
        ("@media (min-width: 1px) {}", "@media (min-width:1px){}"),
        (
            "a:nth-child( 2n + 1 ) , [ title = \"x\" ] {}",
            "a:nth-child( 2n + 1 ),[ title = \"x\" ]{}",
        ),
        (
            ".x { width: calc(100% - (2 * 10px)) }",
            ".x{width:calc(100% - (2 * 10px))}",
        ),
        (".x { color: red ! important }", ".x{color:red! important}"),
    ] {
        gives(css, expected);
    }
}

#[test]
fn the_space_internet_explorer_6_needs_after_first_letter_stays() {
    gives(
        "p:first-letter { color: red }\np:first-line , b { color: red }",
        "p:first-letter {color:red}p:first-line ,b{color:red}",
    );
}

#[test]
fn the_semicolons_that_end_a_declaration_block_go_and_no_other() {
    gives("a { b: c;; } ; d { e: f ; }", "a{b:c}; d{e:f}");
}

#[test]
fn keyframes_font_faces_and_supports_are_minified_inside() {
    gives(
        "@-webkit-keyframes spin { 0% { -webkit-transform: rotate(0deg); } \
         100% { -webkit-transform: rotate(359deg); } }\n\
         @font-face { font-family: 'A'; src: url('a.eot?#iefix') format('embedded-opentype'), \
         url(a.woff) format('woff'); }\n@supports (display: flex) { a { display: flex } }",
        "@-webkit-keyframes spin{0%{-webkit-transform:rotate(0deg)}\
         100%{-webkit-transform:rotate(359deg)}}\
         @font-face{font-family:'A';src:url('a.eot?#iefix') format('embedded-opentype'),\
         url(a.woff) format('woff')}@supports (display:flex){a{display:flex}}",
    );
}

#[test]
fn comment_hacks_of_old_browsers_keep_every_comment() {
    let css = "/* \\*/\n.a { color: red } /* note */\n/* */\n.b { width/**/: 1px }";
    gives(css, "/* \\*/.a{color:red}/* note *//* */.b{width/**/:1px}");
}

#[test]
fn a_charset_rule_stays_first_and_a_gap_before_one_stays() {
    gives(
        "@charset \"UTF-8\";\na { b: c }",
        "@charset \"UTF-8\";a{b:c}",
    );
    gives(
        " @charset \"UTF-8\";\na { b: c }",
        " @charset \"UTF-8\";a{b:c}",
    );
}

#[test]
fn what_browsers_recover_from_differently_is_left_as_it_is() {
    for css in [
        "a { content: \"broken\n\" }",
        "a { color: red } }",
        "a { color: red",
        "a { background: url(a b.gif) }",
    ] {
        assert!(
            matches!(minify_sheet(css.as_bytes()), Err(Kept::Unparsed(_))),
            "{css}"
        );
    }
}

#[test]
fn tokens_written_apart_are_kept_apart() {
    // `/*` would open a comment, a lone `\` keeps its line break, `1px-2px` would be one token.
    for (css, expected) in [
        ("a { b: 1 / *x }", "a{b:1/ *x}"),
        ("a { b: c\\\n}", "a{b:c\\\n}"),
        ("a { b: 1px -2px }", "a{b:1px -2px}"),
        ("a { b: x /**/ /**/ y }", "a{b:x y}"),
    ] {
        gives(css, expected);
    }
}

#[test]
fn a_utf8_sheet_keeps_its_declaration_and_an_undeclared_one_is_left_alone() {
    let declared = "@charset \"UTF-8\";\na::before { content: \"→ \" }\n";
    let out = min(declared);
    assert!(out.starts_with("@charset \"UTF-8\";"), "{out}");
    assert!(out.contains('→'), "{out}");
    let bom = [BOM, "a::before { content: \"é\" }".as_bytes()].concat();
    assert!(minify_sheet(&bom).unwrap().starts_with(BOM));
    assert!(matches!(
        minify_sheet("a::before { content: \"é\" }".as_bytes()),
        Err(Kept::Charset(_))
    ));
    assert!(matches!(
        minify_sheet(b"a::before { content: \"\xe9\" }"),
        Err(Kept::Charset(_))
    ));
}

const SHEET: &str = "/*! v1 */\n.col { width: 33.3333333333%; }\nhtml>/**/body a, b c { \
                     margin: 0 auto; }\n@media screen and (min-width: 1px) { a { b: c } }\n";

#[test]
fn the_proof_accepts_the_minified_sheet() {
    proof::check(SHEET, &min(SHEET)).unwrap();
}

#[test]
fn the_proof_rejects_any_other_change() {
    let good = min(SHEET);
    for (wrong, what) in [
        (
            good.replacen("33.3333333333", "33.3333333334", 1),
            "a digit",
        ),
        (good.replacen("33.3333333333", "33.3333", 1), "rounding"),
        (good.replacen("/*! v1 */", "", 1), "a notice dropped"),
        (good.replacen("/**/", "", 1), "a hack's comment dropped"),
        (
            good.replacen("b c", "bc", 1),
            "a descendant combinator joined",
        ),
        (good.replacen("b c", "b>c", 1), "a combinator changed"),
        (good.replacen("0 auto", "0auto", 1), "two values joined"),
        (good.replacen("and (", "and(", 1), "a function made"),
        (good.replacen("width", "WIDTH", 1), "letter case"),
        (format!("{good}x{{}}"), "a rule added"),
    ] {
        assert_ne!(wrong, good, "{what}: the case changed nothing");
        assert!(proof::check(SHEET, &wrong).is_err(), "{what}: {wrong}");
    }
}

#[test]
fn the_proof_names_where_the_output_differs() {
    let why = proof::check("a{b:1}\nc{d:2}", "a{b:1}\nc{d:3}").unwrap_err();
    assert!(why.contains("at 2:5") && why.contains("\"3\""), "{why}");
}

#[test]
fn what_lightningcss_printed_fails_the_proof() {
    // The cases, as lightningcss printed them before the token pass: each is caught.
    for css in [
        ".fa:before { content: \"\\f000\" }",
        ".a { background: -webkit-linear-gradient(top, red, blue) }",
        "input:-ms-input-placeholder { color: #999 }",
        "@media \\0screen { a { color: red } }",
        ".a { filter: progid:DXImageTransform.Microsoft.gradient(startColorstr=#80000000, \
         endColorstr=#80000000) }",
        ".a { color: hsl(0, 100%, 50%) }",
        ".a { width: calc(10px + 5px) }",
        ".a { color: #ff000080 }",
        ".a { width: 33.3333333333% }",
        "/*! a */ a { b: c } /*! b */ d { e: f }",
    ] {
        let printed = printed_by_lightningcss(css).unwrap();
        assert!(proof::check(css, &printed).is_err(), "{css} → {printed}");
        proof::check(css, &min(css)).unwrap();
    }
}
