use super::oxc::{self, Arena, Goal};
use super::*;

mod corpus;

fn min(src: &str) -> String {
    minify(src).unwrap_or_else(|e| panic!("{src:?}: {e}"))
}

/// oxc, asked again here, reads `out` as the same program as `src` under every goal it reads
/// `src` in (and in at least one); or what differs.
fn same_program(src: &str, out: &str) -> Result<(), String> {
    let (a, b) = (Arena::default(), Arena::default());
    let mut goals = 0;
    for goal in [Goal::Script, Goal::Module] {
        let Ok(before) = oxc::parse(&a, src, goal) else {
            continue;
        };
        goals += 1;
        let after = oxc::parse(&b, out, goal)
            .map_err(|e| format!("the copy does not parse as a {goal:?}: {e}"))?;
        if !before.same_tree(&after) {
            return Err(format!("as a {goal:?}, the trees differ"));
        }
    }
    match goals {
        0 => Err("the original parses in no goal".into()),
        _ => Ok(()),
    }
}

fn assert_same_program(src: &str, out: &str) {
    if let Err(e) = same_program(src, out) {
        panic!("{src:?} → {out:?}: {e}");
    }
}

/// Minifies each source, expects its output, and checks it is the same program.
fn expect(cases: &[(&str, &str)]) {
    for (src, want) in cases {
        let out = min(src);
        assert_eq!(&out, want, "{src:?}");
        assert_same_program(src, &out);
    }
}

/// As [`expect`], and the regular expression `regex` is in the output as written.
fn expect_regex(cases: &[(&str, &str, &str)]) {
    for (src, want, regex) in cases {
        expect(&[(src, want)]);
        assert!(want.contains(regex), "{regex} lost from {want:?}");
    }
}

#[test]
fn comments_and_indentation_go_and_line_breaks_stay() {
    expect(&[(
        "var x0 = 0;\n// a comment\nfunction add(a, b) {\n    /* sum */\n    return a + b;\n}\n\nvar x = add(1, 2);   // three\n",
        "var x0=0;\nfunction add(a,b){\nreturn a+b;\n}\nvar x=add(1,2);",
    )]);
}

#[test]
fn a_slash_after_a_contextual_keyword_used_as_a_name_divides() {
    expect(&[
        (
            "var yield = 4, g = 2;\nx = yield / 2 / g;",
            "var yield=4,g=2;\nx=yield/2/g;",
        ),
        (
            "var await = 4, g = 2;\nx = await / 2 / g;",
            "var await=4,g=2;\nx=await/2/g;",
        ),
        (
            "var of = 4, g = 2;\nx = of / 2 / g;",
            "var of=4,g=2;\nx=of/2/g;",
        ),
        (
            "var let = 4, g = 2;\nx = let / 2 / g;",
            "var let=4,g=2;\nx=let/2/g;",
        ),
        (
            "var async = 4, g = 2;\nx = async / 2 / g;",
            "var async=4,g=2;\nx=async/2/g;",
        ),
    ]);
}

#[test]
fn a_slash_after_yield_await_and_of_as_keywords_starts_a_regular_expression() {
    expect_regex(&[
        (
            "function* f() { yield /a  b/g; }",
            "function*f(){yield/a  b/g;}",
            "/a  b/g",
        ),
        (
            "async function f() { await /a  b/g.exec(s); }",
            "async function f(){await/a  b/g.exec(s);}",
            "/a  b/g",
        ),
        (
            "for (x of /a  b/g.exec(s)) ;",
            "for(x of/a  b/g.exec(s));",
            "/a  b/g",
        ),
    ]);
}

#[test]
fn a_slash_after_a_method_or_property_named_like_a_keyword_divides() {
    expect(&[
        (
            "a = t.if(x) / 2; // half\nb = 1 / 3;",
            "a=t.if(x)/2;\nb=1/3;",
        ),
        ("a = t.for(x) / 2 / g;", "a=t.for(x)/2/g;"),
        ("a = o.if / 2 / g;", "a=o.if/2/g;"),
        ("a = o.return / 2 / g;", "a=o.return/2/g;"),
    ]);
}

#[test]
fn a_slash_after_a_template_substitution_opens_starts_a_regular_expression() {
    expect_regex(&[
        (
            "x = `${ /a  b/.source }`;",
            "x=`${/a  b/.source}`;",
            "/a  b/",
        ),
        (
            "x = `a${ 1 }b${ /c  d/g }`;",
            "x=`a${1}b${/c  d/g}`;",
            "/c  d/g",
        ),
    ]);
}

#[test]
fn a_slash_after_default_extends_and_for_await_starts_a_regular_expression() {
    expect_regex(&[
        ("export default /a  b/;", "export default/a  b/;", "/a  b/"),
        (
            "class A extends /a  b/.constructor {}",
            "class A extends/a  b/.constructor{}",
            "/a  b/",
        ),
        (
            "async function f() { for await (const x of y) /a  b/.test(x); }",
            "async function f(){for await(const x of y)/a  b/.test(x);}",
            "/a  b/",
        ),
    ]);
}

#[test]
fn a_slash_after_a_closing_brace_is_read_in_context() {
    expect_regex(&[
        (
            "if (a) {}\n/a  b/.test(s)",
            "if(a){}\n/a  b/.test(s)",
            "/a  b/",
        ),
        (
            "function f() {}\n/a  b/g.exec(s)",
            "function f(){}\n/a  b/g.exec(s)",
            "/a  b/g",
        ),
    ]);
    expect(&[
        ("x = {} / 2 / g;", "x={}/2/g;"),
        ("x = function () {} / 2 / g;", "x=function(){}/2/g;"),
    ]);
}

#[test]
fn line_breaks_that_automatic_semicolons_need_are_kept() {
    expect(&[
        ("function f() { return\nx }", "function f(){return\nx}"),
        ("a\n++b", "a\n++b"),
        ("a = b\n(c)", "a=b\n(c)"),
        // No semicolon is inserted here: a division, as written.
        ("x = y\n/re/g.exec(z)", "x=y\n/re/g.exec(z)"),
        ("x = 1 /* two\nlines */ y = 2", "x=1\ny=2"),
        (
            "function f() { return /*\n*/ x }",
            "function f(){return\nx}",
        ),
    ]);
}

#[test]
fn tokens_that_would_merge_keep_a_space() {
    expect(&[
        ("a + +b", "a+ +b"),
        ("a - -b", "a- -b"),
        ("a - --b", "a- --b"),
        ("x = 1 .toString()", "x=1 .toString()"),
        ("typeof x", "typeof x"),
        ("a = /re/g in o", "a=/re/g in o"),
        ("a = /re/ in o", "a=/re/ in o"),
        ("x = a / /re/.source.length", "x=a/ /re/.source.length"),
        ("x < ! --y", "x< !--y"),
        ("a-- > b", "a-- >b"),
        ("x = a ? .5 : b", "x=a? .5:b"),
    ]);
}

#[test]
fn strings_templates_numbers_and_regular_expressions_keep_every_byte() {
    let src = "var s = 'a  //  b', t = `x  ${ a /* c */ + `in ${ b }` }  y`;\nvar r = /\\/*  [/]  x/gi;\nif (ok) /re  gex/.test(s)\nvar d = a / 2 / b, n = 0x1F + 1e3 + 0.50 + 1_000 + .5e-1;";
    let out = min(src);
    for piece in [
        "'a  //  b'",
        "`x  ${",
        "`in ${",
        "}  y`",
        "/\\/*  [/]  x/gi",
        "/re  gex/",
        "0x1F+1e3+0.50+1_000+.5e-1",
    ] {
        assert!(out.contains(piece), "{piece} lost in {out}");
    }
    assert!(out.contains("a/2/b"), "{out}");
    assert!(!out.contains("/* c */"), "{out}");
    assert_same_program(src, &out);
}

#[test]
fn every_kind_of_notice_is_kept_byte_for_byte() {
    for notice in [
        "/*! jQuery v3 | jquery.org */",
        "//! keep me",
        "/** @license\n * Whatever terms\n */",
        "/* @preserve keep */",
        "// Copyright 2010 Someone",
        "/* (c) 2010 Someone */",
        "/* © Someone */",
        "// Licensed under the Apache License, Version 2.0",
        "/* This licence applies */",
        "// SPDX-License-Identifier: BSD-3-Clause",
        "/* Released under the MIT terms */",
        "/* GPLv2 or later */",
        "/*\n * Redistribution and use in source and binary forms, with or without modification\n */",
        "// THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND",
        "/* Public domain. */",
    ] {
        let src = format!("var a = 1; /* plain */\n{notice}\nvar b = 2;   // plain too\n");
        let out = min(&src);
        assert_eq!(out, format!("var a=1;\n{notice}\nvar b=2;"), "{notice:?}");
        assert!(is_notice(notice), "{notice:?}");
    }
}

#[test]
fn comments_that_name_no_notice_go() {
    for comment in [
        "// calls f(c) and submit()",
        "/* TODO: licenses? no: lice */",
        "// a limit of 3",
    ] {
        let notice = is_notice(comment);
        let out = min(&format!("var a = 1;\n{comment}\nvar b = 2;"));
        assert_eq!(out.contains(comment), notice, "{comment:?} → {out:?}");
    }
    assert!(!is_notice("// calls f(c) and submit()"));
    assert!(!is_notice("// a limit of 3"));
}

#[test]
fn the_files_leading_comments_are_kept() {
    expect(&[
        (
            "/* header */\n// second line\n\n/* third */ var a = 1; /* gone */ // gone too\n",
            "/* header */\n// second line\n/* third */ var a=1;",
        ),
        (
            "#!/usr/bin/env node\n// header\nx()  // gone\n",
            "#!/usr/bin/env node\n// header\nx()",
        ),
    ]);
}

#[test]
fn jscript_conditional_compilation_comments_are_kept() {
    assert_eq!(
        minify("/*@cc_on @*/\nvar a = 1;   // x"),
        Err(Kept::ConditionalCompilation)
    );
    assert_eq!(
        minify("var a = 1;\n//@cc_on\nvar b = 2;"),
        Err(Kept::ConditionalCompilation)
    );
    // Named in a regular expression, not a comment: code to no browser.
    expect(&[(
        "var re = /@preserve|@cc_on/i;  // comments kept",
        "var re=/@preserve|@cc_on/i;",
    )]);
    // Without `@cc_on` here, another script of the page may still have turned it on.
    let conditional = "/*@if (@_jscript_version >= 5)\n  a = 2;\n@end @*/";
    expect(&[
        (
            &format!("var a = 1;\n{conditional}\nvar b = 3;"),
            &format!("var a=1;\n{conditional}\nvar b=3;"),
        ),
        (
            "var a = 1; //@ sourceMappingURL=a.map\nb()",
            "var a=1; //@ sourceMappingURL=a.map\nb()",
        ),
        (
            "var a = 1;\n//# sourceMappingURL=app.js.map\n",
            "var a=1;\n//# sourceMappingURL=app.js.map",
        ),
    ]);
}

#[test]
fn what_oxc_cannot_read_is_left_alone() {
    assert!(matches!(
        minify("var s = 'open"),
        Err(Kept::Unparsed { .. })
    ));
    assert!(matches!(
        minify("/* never closed"),
        Err(Kept::Unparsed { .. })
    ));
    assert_eq!(minify("x = 1 <!-- y"), Err(Kept::HtmlComment(6)));
    assert_eq!(minify_script(b"var a = '\xE9';  "), Err(Kept::NotUtf8));
}

#[test]
fn a_script_that_reads_differently_as_a_module_is_left_alone() {
    // As a script, `await` is a name and this divides; as a module, `/ 2 /` is a regular
    // expression and a semicolon is inserted before `y`.
    assert_eq!(minify("x = await / 2 /\ny"), Err(Kept::Goals));
}

#[test]
fn a_module_is_minified_and_proven_as_a_module() {
    expect(&[(
        "import a from 'a';\nexport const b = await a / 2;  // half\n",
        "import a from'a';\nexport const b=await a/2;",
    )]);
}

#[test]
fn a_byte_order_mark_stays() {
    let out = minify_script(b"\xEF\xBB\xBFvar a = 1;  // x\n").unwrap();
    assert_eq!(out, b"\xEF\xBB\xBFvar a=1;");
}

/// The proof itself can fail: a copy with another tree, another token text with the same
/// tree, or a notice dropped is refused.
#[test]
fn the_proof_refuses_a_copy_that_is_not_the_same() {
    let arena = Arena::default();
    let refused = |src: &'static str, out: &str, kept: &[&str]| {
        let before = oxc::parse(&arena, src, Goal::Script).unwrap();
        matches!(
            prove(src, &before, out, Goal::Script, kept),
            Err(Kept::Changed(_))
        )
    };
    let src = "function f() { return\nx }";
    assert!(refused(src, "function f(){return x}", &[]));
    assert!(!refused(src, "function f(){return\nx}", &[]));
    assert!(refused("n = 0.50", "n=0.5", &[]));
    let src = "a();\n/*! notice */\nb()";
    assert!(refused(src, "a();\nb()", &["/*! notice */"]));
    assert!(!refused(
        src,
        "a();\n/*! notice */\nb()",
        &["/*! notice */"]
    ));
}

#[test]
fn white_space_another_charset_may_read_otherwise_stays_as_written() {
    expect(&[
        ("var a =\u{A0}1;   b()", "var a=\u{A0}1;b()"),
        ("a = b ||\u{A0} c", "a=b||\u{A0} c"),
        ("a = 1 \u{2028} b = 2", "a=1 \u{2028} b=2"),
        (
            "a = 1 /* \u{2028} */ + 2 /* gone */",
            "a=1 /* \u{2028} */ +2",
        ),
    ]);
}
