use super::*;

fn min(src: &str) -> String {
    minify(src).unwrap_or_else(|e| panic!("{src:?}: {e}"))
}

#[test]
fn comments_and_indentation_go_and_line_breaks_stay() {
    let src = "// a comment\nfunction add(a, b) {\n    /* sum */\n    return a + b;\n}\n\nvar x = add(1, 2);   // three\n";
    assert_eq!(
        min(src),
        "function add(a,b){\nreturn a+b;\n}\nvar x=add(1,2);"
    );
}

#[test]
fn line_breaks_that_automatic_semicolons_need_are_kept() {
    for (src, want) in [
        ("a = b\n(c)", "a=b\n(c)"),
        ("return\nx", "return\nx"),
        ("a\n++b", "a\n++b"),
        ("x = 1 /* two\nlines */ y = 2", "x=1\ny=2"),
    ] {
        assert_eq!(min(src), want, "{src:?}");
    }
}

#[test]
fn tokens_that_would_merge_keep_a_space() {
    for (src, want) in [
        ("a + +b", "a+ +b"),
        ("a - -b", "a- -b"),
        ("a - --b", "a- --b"),
        ("x = 1 .toString()", "x=1 .toString()"),
        ("typeof x", "typeof x"),
        ("a = /re/g in o", "a=/re/g in o"),
        ("x < ! --y", "x< !--y"),
        ("a-- > b", "a-- >b"),
    ] {
        assert_eq!(min(src), want, "{src:?}");
    }
}

#[test]
fn strings_templates_and_regular_expressions_keep_every_byte() {
    let src = "var s = 'a  //  b', t = `x  ${ a /* c */ + `in ${ b }` }  y`;\nvar r = /\\/*  [/]  x/gi;\nif (ok) /re  gex/.test(s)\nvar d = a / 2 / b;";
    let out = min(src);
    for piece in [
        "'a  //  b'",
        "`x  ${",
        "`in ${",
        "}  y`",
        "/\\/*  [/]  x/gi",
        "/re  gex/",
    ] {
        assert!(out.contains(piece), "{piece} lost in {out}");
    }
    assert!(out.contains("a/2/b"), "{out}");
    assert!(!out.contains("/* c */"), "{out}");
}

#[test]
fn licences_and_source_maps_are_kept() {
    let src = "/*! jQuery v3 | (c) OpenJS | jquery.org/license */\n/* @license MIT */\nvar a = 1; // note\n//# sourceMappingURL=app.js.map\n";
    let out = min(src);
    assert!(out.starts_with("/*! jQuery v3"), "{out}");
    assert!(out.contains("/* @license MIT */") && out.contains("//# sourceMappingURL=app.js.map"));
    assert!(!out.contains("note"));
}

#[test]
fn what_the_tokens_cannot_decide_is_left_alone() {
    assert!(matches!(
        minify("if (a) {}\n/re/.test(b)"),
        Err(Kept::Ambiguous(_))
    ));
    assert!(matches!(minify("var s = 'open"), Err(Kept::Unreadable(_))));
    assert!(matches!(
        minify("/* never closed"),
        Err(Kept::Unreadable(_))
    ));
    assert!(matches!(minify("x = 1 <!-- y"), Err(Kept::Unreadable(_))));
    assert!(matches!(
        minify("var t = `a ${ b"),
        Err(Kept::Unreadable(_))
    ));
}

#[test]
fn keywords_as_property_names_divide() {
    assert_eq!(min("a.return / 2 / b"), "a.return/2/b");
    assert_eq!(min("x = y++ / 2"), "x=y++/2");
    assert_eq!(min("return /x/.test(s)"), "return/x/.test(s)");
}
