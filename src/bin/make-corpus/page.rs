//! The page: the 1996 template with its generated parts (news, products, downloads and a
//! press archive that pads it to the study's size) and the image markers expanded.
//!
//! All names, products and news are invented.

mod template;

use std::fmt::Write as _;

use crate::images::Img;
use crate::rng::Rng;

use template::PAGE;

struct News {
    date: &'static str,
    title: &'static str,
    text: &'static str,
    url: &'static str,
    new: bool,
}

const NEWS: &[News] = &[
    News {
        date: "Dec 6",
        title: "Voyager 4.0 preview release 2 now available",
        text: "The second preview adds push channels, a faster layout engine and support for the new style sheets draft. Download it free for Windows 95, Windows NT, Mac OS and nine versions of UNIX.",
        url: "voyager/pr2.html",
        new: true,
    },
    News {
        date: "Dec 5",
        title: "Harbor Server 2.0 ships",
        text: "Our web server now runs on Windows NT and six flavors of UNIX, with built-in search, server-side ScapeScript and a graphical administration console.",
        url: "harbor/20.html",
        new: true,
    },
    News {
        date: "Dec 4",
        title: "Bayview Public Library puts all 40 branches online",
        text: "Every branch now has public Voyager terminals and a shared catalog served by Harbor. Patrons can reserve books from home.",
        url: "news/library.html",
        new: false,
    },
    News {
        date: "Dec 3",
        title: "Postbox learns HTML mail",
        text: "Send messages with pictures, tables and links to anyone, and they still read fine in plain-text mail programs.",
        url: "postbox/html-mail.html",
        new: false,
    },
    News {
        date: "Dec 2",
        title: "Compass Directory beta opens to the public",
        text: "One address book for the whole company, reachable from Voyager, Postbox and any standard directory client.",
        url: "compass/beta.html",
        new: false,
    },
    News {
        date: "Nov 29",
        title: "Security update for Voyager 3.01",
        text: "A fix for a form submission problem reported by a university research group. All users should install the update.",
        url: "support/security/3011.html",
        new: false,
    },
    News {
        date: "Nov 27",
        title: "Holiday hours for technical support",
        text: "Telephone support closes at noon on December 24 and 31. Mail and the knowledge base stay open around the clock.",
        url: "support/hours.html",
        new: false,
    },
];

struct Product {
    name: &'static str,
    text: &'static str,
    url: &'static str,
    price: &'static str,
}

const PRODUCTS: &[Product] = &[
    Product {
        name: "Voyager 4.0",
        text: "The browser that started it all, now with mail, news, push channels and a page editor built in.",
        url: "voyager/",
        price: "Free preview",
    },
    Product {
        name: "Harbor Server 2.0",
        text: "Publish documents, run applications and search your whole intranet from one fast server.",
        url: "harbor/",
        price: "$995 per server",
    },
    Product {
        name: "Scribe 2.0",
        text: "What you see is what you get page editing. Drag in pictures and tables, publish with one click.",
        url: "scribe/",
        price: "$39",
    },
    Product {
        name: "Postbox 1.5",
        text: "Mail and discussion groups that work offline, with filters, signatures and HTML messages.",
        url: "postbox/",
        price: "Included in Voyager",
    },
    Product {
        name: "Compass Directory 1.0",
        text: "A standard directory for people, groups and machines that every Microscape product can read.",
        url: "compass/",
        price: "$1,495",
    },
];

fn news_html() -> String {
    let mut s = String::new();
    s.push_str("<TABLE WIDTH=300 BORDER=0 CELLPADDING=2 CELLSPACING=0>\n");
    for (i, n) in NEWS.iter().enumerate() {
        let bg = if i % 2 == 0 { "#FFFFFF" } else { "#F0F0F8" };
        let _ = writeln!(
            s,
            "<TR><TD WIDTH=14 VALIGN=TOP BGCOLOR=\"{bg}\"><IMG [[U:images/bullet_ball.gif]] VSPACE=3 ALT=\"*\"></TD>\n\
             <TD VALIGN=TOP BGCOLOR=\"{bg}\"><FONT FACE=\"Arial,Helvetica\" SIZE=-1 COLOR=\"#666666\">{}</FONT>\n\
             <FONT FACE=\"Arial,Helvetica\" SIZE=2><B><A HREF=\"http://www.example.com/{}\">{}</A></B></FONT>{}<BR>\n\
             <FONT SIZE=2>{}</FONT></TD></TR>",
            n.date,
            n.url,
            n.title,
            if n.new {
                " <IMG [[U:images/new.gif]] ALT=\"New!\">"
            } else {
                ""
            },
            n.text
        );
    }
    s.push_str("</TABLE>");
    s
}

fn products_html() -> String {
    let mut s = String::new();
    s.push_str("<table width=300 border=0 cellpadding=3 cellspacing=1>\n");
    for (i, p) in PRODUCTS.iter().enumerate() {
        let bg = if i % 2 == 0 { "#E8EEF8" } else { "#FFFFFF" };
        let _ = writeln!(
            s,
            "<tr bgcolor=\"{bg}\"><td valign=top><font face=\"Arial,Helvetica\" size=2><b><a href=\"http://www.example.com/{}\">{}</a></b></font><br>\n\
             <font size=2>{}</font></td>\n<td valign=top align=right nowrap><font size=1 color=\"#CC0000\"><b>{}</b></font></td></tr>",
            p.url, p.name, p.text, p.price
        );
    }
    s.push_str("</table>");
    s
}

fn downloads_html() -> String {
    let rows = [
        ("Voyager 4.0 PR2", "Windows 95/NT", "7.9 MB"),
        ("Voyager 4.0 PR2", "Mac OS", "8.4 MB"),
        ("Voyager 4.0 PR2", "UNIX", "9.6 MB"),
        ("Voyager 3.01", "Windows 3.1", "3.2 MB"),
        ("Scribe 2.0 trial", "Windows 95/NT", "4.1 MB"),
        ("Harbor 2.0 trial", "Windows NT", "14.2 MB"),
    ];
    let mut s = String::new();
    for (i, (name, os, size)) in rows.iter().enumerate() {
        let bg = if i % 2 == 0 { "#FFFFFF" } else { "#EEEEDD" };
        let _ = writeln!(
            s,
            "<TR><TD BGCOLOR=\"{bg}\"><FONT SIZE=1><A HREF=\"http://www.example.com/download/{}.html\"><B>{name}</B></A><BR>{os} <I>({size})</I></FONT></TD></TR>",
            i + 1
        );
    }
    s
}

/// Press-release headlines built from phrase lists with a seeded generator,
/// as many as it takes to bring the page to the study's size.
fn archive_html(count: usize) -> String {
    const WHO: [&str; 8] = [
        "Microscape",
        "Harbor Server",
        "Voyager",
        "Scribe",
        "Postbox",
        "Compass Directory",
        "ScapeScript",
        "The Microscape Channel Guide",
    ];
    const DID: [&str; 10] = [
        "wins a readers' choice award from",
        "is chosen as the standard intranet platform by",
        "adds support for the formats used by",
        "announces a new partnership with",
        "ships in eleven languages for",
        "opens a developer program for",
        "passes the interoperability tests run by",
        "introduces special pricing for",
        "brings secure commerce to",
        "is now bundled by",
    ];
    const WHOM: [&str; 12] = [
        "the Imaginary Computing Monthly editors",
        "Northfield State University",
        "a consortium of regional banks",
        "the Harbor County school district",
        "independent software vendors",
        "three national airlines",
        "small businesses and home offices",
        "the Lakeside Hospital group",
        "online newspapers",
        "twelve Internet service providers",
        "government agencies",
        "the Pacific Rim trade fair",
    ];
    const MONTHS: [&str; 11] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
    ];
    let mut rng = Rng(1996);
    let mut s = String::new();
    for i in 0..count {
        let month = MONTHS[MONTHS.len() - 1 - (i * MONTHS.len() / count.max(1)).min(10)];
        let day = 1 + rng.below(28);
        let (a, b, c) = (
            rng.below(WHO.len()),
            rng.below(DID.len()),
            rng.below(WHOM.len()),
        );
        let tag = if i % 3 == 0 { "B" } else { "b" };
        let _ = writeln!(
            s,
            "<{tag}>{month} {day}</{tag}> &nbsp;<a href=\"http://www.example.com/press/1996/{:03}.html\">{} {} {}</a><br>",
            i + 1,
            WHO[a],
            DID[b],
            WHOM[c]
        );
    }
    s
}

fn expand(template: &str, images: &[Img]) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 1024);
    let mut rest = template;
    while let Some(start) = rest.find("[[") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("]]").ok_or("unterminated [[ marker")? + start;
        let marker = &rest[start + 2..end];
        let (mode, path) = marker
            .split_once(':')
            .ok_or(format!("bad marker [[{marker}]]"))?;
        let im = images
            .iter()
            .find(|i| i.path == path)
            .ok_or(format!("page refers to unknown image {path}"))?;
        let (w, h) = (im.gif.w, im.gif.h);
        match mode {
            "U" => {
                let _ = write!(out, "SRC=\"{path}\" WIDTH={w} HEIGHT={h}");
            }
            "l" => {
                let _ = write!(out, "src=\"{path}\" width={w} height={h}");
            }
            _ => return Err(format!("bad marker mode in [[{marker}]]")),
        }
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

pub const PAGE_MIN: usize = 42_800;
pub const PAGE_MAX: usize = 43_500;

pub fn build_page(images: &[Img]) -> Result<String, String> {
    let base = PAGE
        .replace("[[NEWS]]", &news_html())
        .replace("[[PRODUCTS]]", &products_html())
        .replace("[[DOWNLOADS]]", &downloads_html());
    for count in 0..400 {
        let page = expand(&base.replace("[[ARCHIVE]]", &archive_html(count)), images)?;
        if page.len() >= PAGE_MIN {
            return Ok(page);
        }
    }
    Err("page never reached its target size".into())
}
