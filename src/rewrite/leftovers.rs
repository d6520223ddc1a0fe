//! Which converted GIFs (and PNGs made WebPs) must still be copied: those that something in the
//! rewritten site still names. Two nets, so that no reference that worked in the original breaks:
//!
//! 1. every rewritten page and style sheet is parsed again (html5ever / the CSS tokenizer) and
//!    its references resolved as in the original: one that still reaches a converted GIF (the
//!    span scanner missed it, or could not edit it) keeps that GIF;
//! 2. a textual scan for `name.gif` (and `name.png`) keeps GIFs (and PNGs) that rollovers (`new Image().src = "…"`) and
//!    such name: of scripts (`.js` files, `<script>` blocks, `on…` attributes, `javascript:`
//!    URLs), of pages too large to parse, and of every other file that is text: templates
//!    (JSP, PHP, ASP…, code blocks included), XML, plain text, anything not binary by the
//!    MIME sniffing standard's test. A file webdiet does not read as a page may still be
//!    served as one; whatever it names stays.

use std::collections::BTreeMap;

use percent_encoding::percent_decode;
use url::Url;

use super::output::Staging;
use super::pages::Rename;
use super::spans;
use crate::site::charset;
use crate::site::resolve::{Resolver, Target};
use crate::site::{name, FileKind, Site};

/// Converted GIFs a rewritten document still refers to.
pub(super) fn still_referenced(
    bytes: &[u8],
    kind: FileKind,
    resolver: &Resolver<'_>,
    base: &Url,
    converted: &BTreeMap<String, Rename>,
) -> Vec<String> {
    let values: Vec<String> = match kind {
        FileKind::Html => {
            let text = charset::decode(bytes).text;
            crate::html::references(&text)
                .refs
                .into_iter()
                .map(|r| r.value)
                .collect()
        }
        _ => crate::css::references(&String::from_utf8_lossy(bytes))
            .into_iter()
            .map(|r| r.value)
            .collect(),
    };
    values
        .iter()
        .filter_map(|v| match resolver.resolve(base, v) {
            Target::Local { path, .. } if converted.contains_key(&path) => Some(path),
            _ => None,
        })
        .collect()
}

/// Converted GIFs whose file name (`name.gif`, any case) appears in the scripts of the
/// rewritten tree, anywhere in a page larger than `max_parse_bytes`, or anywhere in a text
/// file that is neither a page nor a style sheet. A file of no known kind is read whole only
/// when its first bytes are text (a site's video or archive is not held in memory to be
/// skipped), and no file is read when nothing was converted.
pub(super) fn named_in_text(
    site: &Site,
    converted: &BTreeMap<String, Rename>,
    staging: &Staging,
    max_parse_bytes: u64,
) -> Vec<String> {
    let mut by_name: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for path in converted.keys() {
        let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
        by_name.entry(name).or_default().push(path);
    }
    // A script may name a GIF by a link to it.
    for link in site.links.iter().filter(|l| !l.dir) {
        if let Some((path, _)) = converted.get_key_value(&link.leads_to) {
            let name = link.path.rsplit('/').next().unwrap_or(&link.path);
            by_name.entry(name.to_lowercase()).or_default().push(path);
        }
    }
    let mut found = Vec::new();
    if by_name.is_empty() {
        return found;
    }
    for file in &site.files {
        if matches!(
            file.kind,
            FileKind::Css | FileKind::Gif | FileKind::Png | FileKind::Jpeg | FileKind::Webp
        ) {
            continue;
        }
        let staged = staging.path(&file.path);
        let disk = match staged {
            Ok(staged) if staged.exists() => staged,
            _ => match site.disk_path(&file.path) {
                Ok(disk) => disk,
                Err(_) => continue,
            },
        };
        if file.kind == FileKind::Other
            && crate::input::read_head(&disk, crate::site::SNIFF_LEN)
                .map_or(true, |(head, _)| crate::site::looks_binary(&head))
        {
            continue;
        }
        let Ok(bytes) = crate::input::read_limited(&disk, crate::input::MAX_SITE_FILE_BYTES) else {
            continue;
        };
        let encoding = charset::detect(&bytes).encoding;
        let parsed = file.kind == FileKind::Html
            && file.bytes <= max_parse_bytes
            && encoding.is_ascii_compatible();
        let names = if parsed {
            let text = spans::byte_preserving(&bytes, encoding);
            spans::scan(&text)
                .scripts
                .into_iter()
                .flat_map(|r| image_names(&bytes[r]))
                .collect()
        } else {
            image_names(&bytes)
        };
        for name in names {
            if let Some(paths) = by_name.get(&name) {
                found.extend(paths.iter().map(|p| p.to_string()));
            }
        }
    }
    found
}

/// Every `something.gif` and `something.png` (the names a converted file may have had) in a
/// text, without its directory, as a lower-cased site path (percent-escapes decoded, bytes
/// that are not UTF-8 escaped as in [`name`]).
fn image_names(bytes: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    let mut i = 0;
    while i + 4 <= bytes.len() {
        if bytes[i] == b'.'
            && (bytes[i + 1..i + 4].eq_ignore_ascii_case(b"gif")
                || bytes[i + 1..i + 4].eq_ignore_ascii_case(b"png"))
        {
            let after = bytes.get(i + 4).copied();
            if after.is_none_or(|b| !(b.is_ascii_alphanumeric() || b"._-".contains(&b))) {
                let start = bytes[..i]
                    .iter()
                    .rposition(|&b| b.is_ascii_whitespace() || b"/\\\"'()=<>,;:+".contains(&b))
                    .map_or(0, |p| p + 1);
                if start < i {
                    let decoded: Vec<u8> = percent_decode(&bytes[start..i + 4]).collect();
                    let name = name::from_bytes(&decoded).to_lowercase();
                    names.push(name);
                }
            }
        }
        i += 1;
    }
    names
}

#[cfg(test)]
mod tests {
    #[test]
    fn image_names_are_found_in_script_strings() {
        let js = br#"if (document.images) { on = new Image(); on.src = "img/Button_On.GIF"; x='a.gif?1' }"#;
        assert_eq!(super::image_names(js), vec!["button_on.gif", "a.gif"]);
        assert!(super::image_names(b"a.gift giffy .gif a.gif.pngs").is_empty());
        assert_eq!(super::image_names(b"s='img/Logo.PNG'"), vec!["logo.png"]);
    }

    #[test]
    fn image_names_in_scripts_are_read_as_bytes() {
        assert_eq!(
            super::image_names(b"x.src='caf%E9.gif'; y.src='r\xe9p/Caf\xc9.GIF'"),
            vec![r"caf\xe9.gif", r"caf\xc9.gif"]
        );
    }
}
