//! The WACZ `--emit-wacz` writes replays in ReplayWeb.page (the `replaywebpage` npm package,
//! served on loopback by webdiet's own server, in headless Chromium) exactly as the original
//! capture does: every page of the rewritten WACZ renders pixel-identical to the same page of
//! the original WACZ loaded the same way. The original is microscape's capture with revisits
//! into another WARC of the package, a revisit by digest alone, redirects, a chunked and
//! gzipped page; not its server-not-modified revisit, which ReplayWeb.page replays as the 304
//! it records (docs/archives.md: the rewritten WACZ then shows an image the original's replay
//! leaves out, so the two cannot be equal).

use std::path::Path;

use crate::common::{self, archives};

use webdiet::chromium::{Browser, RenderOptions};
use webdiet::replay::protocol::http1;
use webdiet::replay::server::{Control, ServeContext, Server};
use webdiet::replay::{ServedSite, ServerOptions};
use webdiet::site::resolve::Resolver;
use webdiet::site::{self, CrawlOptions};
use webdiet::verify::diff;

/// The page that embeds the viewer: the archive and the URL come from the query string.
const EMBED: &str = r#"<!DOCTYPE html><html><head><meta charset="utf-8"><script src="ui.js"></script>
<style>html,body{margin:0;padding:0;height:100%;overflow:hidden}
replay-web-page{display:block;width:100vw;height:100vh}</style></head><body><script>
const q = new URLSearchParams(location.search);
const viewer = document.createElement("replay-web-page");
viewer.setAttribute("source", q.get("source"));
viewer.setAttribute("url", q.get("url"));
viewer.setAttribute("embed", "replayonly");
viewer.setAttribute("replayBase", "./replay/");
document.body.appendChild(viewer);
</script></body></html>"#;

/// True once the archived page has loaded in the viewer's innermost frame (shadow roots and
/// frames searched), with every image decoded, style sheets' backgrounds too (the rewrite
/// moves `background=` into the sheet, where `document.images` does not see it). A string,
/// which fails the render at once, names an image that did not load, or images that did not
/// decode at the eighth poll that found any.
const READY: &str = r#"(async () => {
  const frames = (root, out) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) frames(el.shadowRoot, out);
      if (el.tagName === "IFRAME") {
        out.push(el);
        try { if (el.contentDocument) frames(el.contentDocument, out); } catch (e) {}
      }
    }
    return out;
  };
  const page = frames(document, []).find(f => {
    try { return /mp_\/https?:/.test(f.contentWindow.location.href); } catch (e) { return false; }
  });
  if (!page) return false;
  const d = page.contentDocument;
  if (!d || d.readyState !== "complete" || !d.body) return false;
  const images = [...d.images].filter(i => i.getAttribute("src"));
  const broken = images.find(i => i.complete && i.naturalWidth === 0);
  if (broken) return "the image " + broken.currentSrc + " did not load";
  if (!images.every(i => i.complete)) return false;
  const backgrounds = [...d.querySelectorAll("*")]
    .flatMap(el => [...page.contentWindow.getComputedStyle(el).backgroundImage
      .matchAll(/url\("([^"]*)"\)/g)].map(m => m[1]));
  const decoded = (img, src) => img.decode().then(() => null, e => src + ": " + e.message);
  const failed = (await Promise.all(images.map(i => decoded(i, i.currentSrc))
    .concat(backgrounds.map(src => {
      const i = d.createElement("img");
      i.src = src;
      return decoded(i, src);
    })))).filter(f => f);
  if (!failed.length) return true;
  // A background fetched through the service worker may fail while it starts: tried again at
  // the next polls, and only the eighth poll that fails to decode is an error.
  window.webdietDecodeFailures = (window.webdietDecodeFailures || 0) + 1;
  return window.webdietDecodeFailures < 8 ? false
    : "images that did not decode: " + failed.join("; ");
})()"#;

fn pages_of(wacz: &Path) -> Vec<String> {
    String::from_utf8_lossy(&archives::zip_entry(wacz, "pages/pages.jsonl"))
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["url"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn the_rewritten_wacz_replays_in_replaywebpage_pixel_identical_to_the_original() {
    if !common::chromium_available() {
        return;
    }
    let Some(viewer) = archives::replaywebpage() else {
        return;
    };
    let set = archives::archives();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("www");
    std::fs::create_dir_all(root.join("replay")).unwrap();
    std::fs::copy(viewer.join("ui.js"), root.join("ui.js")).unwrap();
    std::fs::copy(viewer.join("sw.js"), root.join("replay/sw.js")).unwrap();
    std::fs::write(root.join("embed.html"), EMBED).unwrap();
    let original = set.join("microscape-replayable.wacz");
    std::fs::copy(&original, root.join("original.wacz")).unwrap();
    common::webdiet()
        .arg("rewrite")
        .arg(&original)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .arg("--emit-wacz")
        .arg(root.join("rewritten.wacz"))
        .assert()
        .success();
    let pages = pages_of(&root.join("rewritten.wacz"));
    assert!(!pages.is_empty(), "the rewritten WACZ lists no page");

    let crawled = site::crawl(&root, &CrawlOptions::default()).unwrap();
    let (served, _) = ServedSite::from_site(&crawled);
    let resolver = Resolver::new(&served.site, None);
    let opts = ServerOptions::default();
    let cx = ServeContext::new(&served, &resolver, &opts);
    let control = Control::default();
    std::thread::scope(|scope| {
        let server = Server::start(scope, &cx, &control, &http1::SERVER, None).unwrap();
        let render = RenderOptions {
            timeout: std::time::Duration::from_secs(90),
            ..RenderOptions::default()
        };
        let mut browser = Browser::launch(&render).unwrap();
        for page in &pages {
            let shot = |browser: &mut Browser, source: &str| {
                let url = format!(
                    "http://{}/embed.html?source={source}&url={}",
                    server.addr,
                    url_escape(page)
                );
                let shot = browser
                    .render_url_when(&url, READY)
                    .unwrap_or_else(|e| panic!("{source} {page}: {e}"));
                diff::decode_png(&shot.png).unwrap()
            };
            let before = shot(&mut browser, "original.wacz");
            let after = shot(&mut browser, "rewritten.wacz");
            assert!(
                !before.is_uniform(),
                "{page}: the original rendered as a blank page"
            );
            let compared = diff::compare(&before, &after);
            if let Some(image) = &compared.diff_image {
                // Kept for a person to look at: the test's directory goes away.
                let keep = std::env::temp_dir().join("webdiet-replaywebpage-diff.png");
                let _ = std::fs::write(&keep, diff::encode_png(image).unwrap_or_default());
                eprintln!("diff image: {}", keep.display());
            }
            assert_eq!(
                compared.differing_pixels, 0,
                "{page}: the rewritten WACZ renders differently in ReplayWeb.page"
            );
        }
        server.stop();
    });
}

fn url_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
