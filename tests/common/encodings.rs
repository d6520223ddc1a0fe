//! One page per encoding family, written here with our own text, each with presentational
//! markup for the rewrite to convert and a GIF for it to point at a PNG: for the byte-level
//! test (`tests/encodings.rs`) and the render check (`tests/render_check.rs`); and one page per
//! way of deciding an encoding that webdiet once decided unlike Chromium ([`sniffed_pages`]).

use encoding_rs::Encoding;

/// A page of the fixture site.
pub struct EncodedPage {
    /// File name (`shift_jis.html`…).
    pub name: &'static str,
    pub bytes: Vec<u8>,
    /// The encoding a browser reads it in.
    pub encoding: &'static Encoding,
}

/// The page's markup with `{meta}` and `{text}` filled in: a body with colours, a centred
/// heading in a `<font>`, a table with cell attributes, an image, text with entities and
/// characters of the encoding's script in text and in attribute values.
fn markup(meta: &str, text: &str) -> String {
    format!(
        "<html>\n<head>{meta}<title>{text}</title></head>\n\
         <body bgcolor=\"#ffffee\" text=\"#000033\">\n\
         <center><font color=\"#990000\" size=\"+2\" face=\"Arial\">{text}</font></center>\n\
         <basefont size=3>\n\
         <p align=right>{text} &amp; &eacute;t&eacute;&nbsp;&#8212; <b>{text}</b></p>\n\
         <table border=1 cellpadding=4 width=\"80%\"><tr>\n\
         <td bgcolor=#eeeeee align=center valign=top><img src=\"pic.gif\" alt=\"{text}\" \
         width=48 height=48 border=0></td>\n\
         <td nowrap title=\"{text}\"><u>{text}</u> <tt>{text}</tt></td></tr></table>\n\
         <hr noshade size=1>\n</body>\n</html>\n"
    )
}

fn legacy(name: &'static str, label: &str, text: &str) -> EncodedPage {
    let encoding = Encoding::for_label(label.as_bytes()).expect("a known label");
    let meta = format!("<meta http-equiv=\"Content-Type\" content=\"text/html; charset={label}\">");
    let page = markup(&meta, text);
    let (bytes, _, unmappable) = encoding.encode(&page);
    assert!(!unmappable, "{name}: the text must be in {label}");
    EncodedPage {
        name,
        bytes: bytes.into_owned(),
        encoding,
    }
}

fn utf16(name: &'static str, little: bool, text: &str) -> EncodedPage {
    let mut bytes = if little {
        vec![0xff, 0xfe]
    } else {
        vec![0xfe, 0xff]
    };
    for unit in markup("", text).encode_utf16() {
        let pair = if little {
            unit.to_le_bytes()
        } else {
            unit.to_be_bytes()
        };
        bytes.extend_from_slice(&pair);
    }
    EncodedPage {
        name,
        bytes,
        encoding: if little {
            encoding_rs::UTF_16LE
        } else {
            encoding_rs::UTF_16BE
        },
    }
}

/// The pages. Japanese text includes ソ and 表, whose second byte in Shift_JIS is `\`; the
/// Big5 text includes 許 (second byte `\` too).
pub fn pages() -> Vec<EncodedPage> {
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(markup("", "Caf\u{e9} d\u{e9}j\u{e0} vu \u{bd} \u{2603}").as_bytes());
    let mut nul = markup("<meta charset=utf-8>", "NUL a\u{0}b").into_bytes();
    nul.extend_from_slice(b"<p>\0\0 after NUL bytes</p>\n");
    let latin = markup(
        "",
        "caf\u{e9} na\u{ef}ve \u{201c}quoted\u{201d} \u{2013} \u{a3}5",
    );
    let latin = encoding_rs::WINDOWS_1252.encode(&latin).0.into_owned();
    vec![
        EncodedPage {
            name: "utf8-bom.html",
            bytes: bom,
            encoding: encoding_rs::UTF_8,
        },
        utf16(
            "utf16le.html",
            true,
            "\u{65e5}\u{672c}\u{8a9e} Caf\u{e9} \u{20ac}",
        ),
        utf16("utf16be.html", false, "\u{d55c}\u{ad6d}\u{c5b4} na\u{ef}ve"),
        legacy(
            "shift_jis.html",
            "Shift_JIS",
            "\u{30bd}\u{30d5}\u{30c8}\u{8868}\u{793a} \u{65e5}\u{672c}\u{8a9e}",
        ),
        legacy("euc-jp.html", "EUC-JP", "\u{6771}\u{4eac} \u{304b}\u{306a}"),
        legacy("gbk.html", "GBK", "\u{4e2d}\u{6587}\u{7f51}\u{9875}"),
        legacy(
            "big5.html",
            "Big5",
            "\u{8a31}\u{529f}\u{84cb} \u{7e41}\u{9ad4}",
        ),
        legacy(
            "windows-1251.html",
            "windows-1251",
            "\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442} \u{43c}\u{438}\u{440}",
        ),
        legacy(
            "koi8-r.html",
            "KOI8-R",
            "\u{421}\u{442}\u{440}\u{430}\u{43d}\u{438}\u{446}\u{430}",
        ),
        legacy(
            "iso-8859-2.html",
            "ISO-8859-2",
            "P\u{159}\u{ed}li\u{161} \u{17e}lu\u{165}ou\u{10d}k\u{fd} \u{142}\u{f3}d\u{17a}",
        ),
        EncodedPage {
            name: "windows-1252-undeclared.html",
            bytes: latin,
            encoding: encoding_rs::WINDOWS_1252,
        },
        EncodedPage {
            name: "nul-bytes.html",
            bytes: nul,
            encoding: encoding_rs::UTF_8,
        },
    ]
}

/// A 48 × 48 GIF in two colours, in bands (not a spacer: the rewrite converts it to a smaller
/// PNG and leaves it an image).
pub fn picture_gif() -> Vec<u8> {
    let pixels = (0..48 * 48).map(|i| ((i / 48 / 6) % 2) as u8).collect();
    super::still_gif(48, 48, &[200, 30, 30, 30, 30, 200], None, pixels)
}

/// A page whose encoding only the browser's own rules decide (issue 24, item 3), with a cell
/// whose `background` names a GIF by a non-ASCII name: read in the wrong encoding and moved
/// into the style sheet, the picture is lost.
pub struct SniffedPage {
    pub name: &'static str,
    pub bytes: Vec<u8>,
    /// What Chromium 156 reads it in, served over HTTP without a charset
    /// (`document.characterSet`, 2026-12-03).
    pub chromium: &'static Encoding,
    /// Whether webdiet can only guess it (no declaration Chromium honours, bytes not ASCII).
    pub guessed: bool,
    /// The background picture's file name (written in UTF-8 on disk, as the browser asks
    /// for it).
    pub picture: &'static str,
}

/// The family page ([`markup`]) in `encoding`, with `before` ahead of its `<html>`, `meta` in
/// its head, and a cell whose background is `picture`.
fn sniffed(
    name: &'static str,
    (before, meta): (&str, &str),
    encoding: &'static Encoding,
    text: &str,
    picture: &'static str,
    guessed: bool,
) -> SniffedPage {
    let cell = format!(
        "<table cellpadding=4><tr><td background=\"{picture}\" width=120 height=96>{text}</td>\
         </tr></table>\n<hr noshade size=1>"
    );
    let page = format!("{before}{}", markup(meta, text)).replace("<hr noshade size=1>", &cell);
    let (bytes, _, unmappable) = encoding.encode(&page);
    assert!(
        !unmappable,
        "{name}: the text must be in {}",
        encoding.name()
    );
    SniffedPage {
        name,
        bytes: bytes.into_owned(),
        chromium: encoding,
        guessed,
        picture,
    }
}

/// One page per case of issue 24, item 3.
pub fn sniffed_pages() -> Vec<SniffedPage> {
    let japanese = "\u{6771}\u{4eac}\u{306e}\u{5929}\u{6c17}\u{306f}\u{6674}\u{308c}\u{3067}\u{3059}\
        \u{3002}\u{4eca}\u{65e5}\u{306f}\u{3068}\u{3066}\u{3082}\u{826f}\u{3044}\u{65e5}\u{3067}\u{3059}\u{306d}\u{3002}";
    let russian = "\u{41f}\u{440}\u{438}\u{432}\u{435}\u{442} \u{43c}\u{438}\u{440}, \u{44d}\u{442}\u{43e} \
        \u{441}\u{442}\u{440}\u{430}\u{43d}\u{438}\u{446}\u{430} \u{43d}\u{430} \u{440}\u{443}\u{441}\u{441}\u{43a}\u{43e}\u{43c} \
        \u{44f}\u{437}\u{44b}\u{43a}\u{435}";
    let french = "Caf\u{e9} d\u{e9}j\u{e0} vu, na\u{ef}ve \u{e9}t\u{e9} \u{e0} la fen\u{ea}tre";
    let w1251 = encoding_rs::WINDOWS_1251;
    let long_title = "x".repeat(1100);
    vec![
        sniffed(
            "unlabelled-euc-jp.html",
            ("", ""),
            encoding_rs::EUC_JP,
            japanese,
            "\u{6771}\u{4eac}.gif",
            true,
        ),
        sniffed(
            "comment-before-meta.html",
            ("<!-->", "<meta charset=windows-1251>"),
            w1251,
            russian,
            "\u{444}\u{43e}\u{43d}.gif",
            false,
        ),
        sniffed(
            "meta-after-1024-in-head.html",
            (
                "",
                &format!("<title>{long_title}</title><meta charset=windows-1251>"),
            ),
            w1251,
            russian,
            "\u{444}\u{43e}\u{43d}.gif",
            false,
        ),
        sniffed(
            "meta-content-without-http-equiv.html",
            ("", "<meta content=\"text/html; charset=windows-1251\">"),
            w1251,
            russian,
            "\u{444}\u{43e}\u{43d}.gif",
            true,
        ),
        sniffed(
            "xml-declaration.html",
            ("<?xml version=\"1.0\" encoding=\"windows-1251\"?>\n", ""),
            w1251,
            russian,
            "\u{444}\u{43e}\u{43d}.gif",
            false,
        ),
        sniffed(
            "meta-in-script-string.html",
            (
                "",
                "<script>var s = '<meta charset=windows-1251>';</script>",
            ),
            encoding_rs::WINDOWS_1252,
            french,
            "\u{e9}t\u{e9}.gif",
            true,
        ),
    ]
}

/// Writes the pages of [`sniffed_pages`] and their pictures under `root`.
pub fn write_sniffed(root: &std::path::Path) -> Vec<SniffedPage> {
    let pages = sniffed_pages();
    let gif = picture_gif();
    let mut files: Vec<(&str, &[u8])> = pages.iter().map(|p| (p.name, &p.bytes[..])).collect();
    files.push(("pic.gif", &gif));
    for page in &pages {
        if !files.iter().any(|(name, _)| *name == page.picture) {
            files.push((page.picture, &gif));
        }
    }
    super::write_site(root, &files);
    pages
}

/// Writes the pages and the picture under `root`.
pub fn write(root: &std::path::Path) -> Vec<EncodedPage> {
    let pages = pages();
    let gif = picture_gif();
    let mut files: Vec<(&str, &[u8])> = pages.iter().map(|p| (p.name, &p.bytes[..])).collect();
    files.push(("pic.gif", &gif));
    super::write_site(root, &files);
    pages
}

/// The icon sheet of [`write_icon_font_site`], in the manner of Font Awesome 4: its icons are
/// escapes of private-use characters, its text escapes of others, in an ASCII file with no
/// `@charset`, so the page's windows-1252 is what a browser reads it in.
pub const ICON_SHEET: &str = "/*!\n *  Icon sheet (written for webdiet's tests, in the manner \
of Font Awesome 4)\n */\n.fa {\n  display: inline-block;\n  font: normal normal normal \
14px/1 sans-serif;\n}\n/* one icon */\n.fa-glass:before {\n  content: \"\\f000\";\n}\n\
.accent:after {\n  content: \"caf\\e9  \\2014\";\n}\n";

/// Writes a windows-1252 page (`index.html`, `<meta charset=windows-1252>`) that links
/// `css/icons.css` ([`ICON_SHEET`]) under `root`.
pub fn write_icon_font_site(root: &std::path::Path) {
    let page = b"<html><head><meta charset=\"windows-1252\"><title>Ic\xf4nes</title>\
<link rel=\"stylesheet\" href=\"css/icons.css\"></head>\n<body><p>Caf\xe9 \
<i class=\"fa fa-glass\"></i> <span class=\"accent\"></span></p></body></html>\n";
    super::write_site(
        root,
        &[
            ("index.html", &page[..]),
            ("css/icons.css", ICON_SHEET.as_bytes()),
        ],
    );
}
