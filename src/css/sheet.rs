//! Builds the shared style sheet: stable, short class names for declaration blocks and
//! minification through lightningcss.
//!
//! Names come from a hash of the block's text alone (FNV-1a, fixed across Rust versions), so the
//! same block always gets the same name whatever order the pages were read in. Each name is the
//! shortest prefix (at least two characters) of the hash that no other block in the sheet shares.

use std::collections::{BTreeMap, BTreeSet};

use lightningcss::stylesheet::{MinifyOptions, ParserOptions, PrinterOptions, StyleSheet};

/// 64-bit FNV-1a of `text`.
fn fnv1a(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The hash written as a class-name-safe string: a letter, then base-36 digits.
fn hash_name(text: &str) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let hash = fnv1a(text);
    let mut name = String::new();
    name.push((b'a' + (hash % 26) as u8) as char);
    let mut rest = hash / 26;
    while rest > 0 {
        name.push(DIGITS[(rest % 36) as usize] as char);
        rest /= 36;
    }
    name
}

/// Assigns each distinct block a short class name that depends only on the set of blocks.
pub fn class_names(blocks: &BTreeSet<String>) -> BTreeMap<String, String> {
    let full: Vec<(String, &String)> = blocks.iter().map(|b| (hash_name(b), b)).collect();
    let mut names = BTreeMap::new();
    let mut taken = BTreeSet::new();
    for (hash, block) in &full {
        let mut len = 2.min(hash.len());
        while len < hash.len()
            && full
                .iter()
                .any(|(other, b)| *b != *block && other.starts_with(&hash[..len]))
        {
            len += 1;
        }
        let mut name = hash[..len].to_string();
        // Two blocks with the very same 64-bit hash: disambiguate by block order, which is the
        // sorted order of their text and so still independent of page order.
        let mut n = 0;
        while taken.contains(&name) {
            n += 1;
            name = format!("{}{n}", &hash[..len]);
        }
        taken.insert(name.clone());
        names.insert((*block).clone(), name);
    }
    names
}

/// Minifies a style sheet with lightningcss; the error names what could not be parsed.
pub fn minify(css: &str) -> Result<String, String> {
    let mut sheet = StyleSheet::parse(css, ParserOptions::default()).map_err(|e| e.to_string())?;
    sheet
        .minify(MinifyOptions::default())
        .map_err(|e| e.to_string())?;
    let out = sheet
        .to_css(PrinterOptions {
            minify: true,
            ..PrinterOptions::default()
        })
        .map_err(|e| e.to_string())?;
    Ok(out.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_unique_and_do_not_depend_on_other_blocks_order() {
        let blocks: BTreeSet<String> = ["color:red", "color:blue", "text-align:-webkit-center"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let names = class_names(&blocks);
        let distinct: BTreeSet<&String> = names.values().collect();
        assert_eq!(distinct.len(), blocks.len());
        assert!(names.values().all(|n| n.len() >= 2
            && n.len() < 8
            && n.chars().next().unwrap().is_ascii_lowercase()));
        assert_eq!(names, class_names(&blocks.clone()));
    }

    #[test]
    fn minify_keeps_vendor_alignment_values() {
        let css = minify(".a { text-align: -webkit-center; color: #FF0000 }").unwrap();
        assert!(css.contains("-webkit-center"), "{css}");
        assert!(!css.contains(' '), "{css}");
    }
}
