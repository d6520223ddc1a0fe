//! Builds the shared style sheet: stable, short class names for declaration blocks and
//! minification through lightningcss, a batch of rules at a time.
//!
//! Names come from a hash of the block's text alone (FNV-1a, fixed across Rust versions), so the
//! same block always gets the same name whatever order the pages were read in. Each name is the
//! shortest prefix (at least two characters) of the hash that no other block in the sheet shares.
//!
//! The same rules are often minified twice (the site-sheet and per-page candidates of a
//! one-page site write the same rules in the same order): a [`MinifyMemo`] keeps the last
//! large results, by a digest of the text minified.

use std::io::Write;
use std::sync::{Arc, Mutex};

use lightningcss::rules::CssRule;
use lightningcss::stylesheet::{MinifyOptions, ParserOptions, PrinterOptions, StyleSheet};

use crate::hash::{Map as HashMap, Set as HashSet};

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
/// (A hash map: the rewrite looks up every classed element's names, and on a page with a
/// colour of its own on every row a search of a sorted map of 180,000 blocks cost more than
/// the rest of naming.)
pub fn class_names(mut blocks: Vec<String>) -> HashMap<String, String> {
    blocks.sort_unstable();
    blocks.dedup();
    let hashes: Vec<String> = blocks.iter().map(|b| hash_name(b)).collect();
    let (lengths, equal_hashes) = unique_prefix_lengths(&hashes);
    let mut names = HashMap::with_capacity_and_hasher(blocks.len(), Default::default());
    // Without two equal hashes every prefix is the name of one block alone.
    let mut taken = HashSet::default();
    for ((hash, block), len) in hashes.iter().zip(blocks).zip(lengths) {
        let mut name = hash[..len].to_string();
        if equal_hashes {
            // Two blocks with the very same 64-bit hash: disambiguate by block order, which
            // is the sorted order of their text and so still independent of page order.
            let mut n = 0;
            while taken.contains(&name) {
                n += 1;
                name = format!("{}{n}", &hash[..len]);
            }
            taken.insert(name.clone());
        }
        names.insert(block, name);
    }
    names
}

/// For each of `hashes` (ASCII), the length of its shortest prefix, at least two characters
/// (or the whole hash if shorter), that starts no other one of `hashes`, or its whole length
/// when every prefix does (a hash equal to, or a prefix of, another); and whether two of
/// `hashes` are equal. Two prefixes given are equal only where their hashes are.
///
/// The prefix must be one character longer than the longest prefix the hash shares with any
/// other, and in sorted order that other is a neighbour: a sort and one pass, where asking
/// every other hash for every hash took n² comparisons (on a 15 MB page with a colour of its
/// own on every row, 180,000 blocks, hours: `docs/markup.md`, "Limits").
fn unique_prefix_lengths(hashes: &[String]) -> (Vec<usize>, bool) {
    let mut sorted: Vec<usize> = (0..hashes.len()).collect();
    sorted.sort_unstable_by(|&a, &b| hashes[a].cmp(&hashes[b]));
    let mut shared = vec![0; hashes.len()];
    let mut equal = false;
    for pair in sorted.windows(2) {
        let (a, b) = (hashes[pair[0]].as_bytes(), hashes[pair[1]].as_bytes());
        let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        equal |= a == b;
        for i in pair {
            shared[*i] = common.max(shared[*i]);
        }
    }
    let lengths = (hashes.iter().zip(shared))
        .map(|(hash, shared)| (shared + 1).clamp(2.min(hash.len()), hash.len()))
        .collect();
    (lengths, equal)
}

/// Rules in a batch minified at once: the sheet of a 15 MB page with a colour of its own on
/// every row has 180,000, whose syntax tree took over 300 MB when it was minified whole.
const BATCH: usize = 4096;

/// A style sheet written rule by rule, each rule under a selector no other rule has (a class
/// name of its own, as [`class_names`] gives): what [`Rules::minify`] needs to minify it in
/// batches.
#[derive(Debug, Default)]
pub struct Rules {
    /// The rules, one a line.
    text: String,
    /// Where each rule starts in `text`.
    starts: Vec<usize>,
}

impl Rules {
    /// Adds one rule (or several under one class, such as a table's and its cells').
    #[cfg(test)]
    fn push(&mut self, rule: &str) {
        self.push_rule(rule, '\0', "");
    }

    /// Adds `rule` with every `mark` in it written as `with`: a rule key under its class.
    pub fn push_rule(&mut self, rule: &str, mark: char, with: &str) {
        if !self.starts.is_empty() {
            self.text.push('\n');
        }
        self.starts.push(self.text.len());
        let mut parts = rule.split(mark);
        self.text.push_str(parts.next().unwrap_or(""));
        for part in parts {
            self.text.push_str(with);
            self.text.push_str(part);
        }
    }

    /// Whether no rule was added.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The sheet as written, one rule a line.
    #[cfg(test)]
    fn text(&self) -> &str {
        &self.text
    }

    /// The sheet as written, one rule a line.
    pub fn into_text(self) -> String {
        self.text
    }

    /// The sheet minified with lightningcss, as it minifies the whole sheet at once; the error
    /// names what could not be parsed. Its memory is that of a batch of rules, not the sheet's.
    pub fn minify(&self) -> Result<String, String> {
        self.minify_in_batches(BATCH)
    }

    /// [`Rules::minify`], or the result `memo` holds for the same text.
    pub fn minify_with(&self, memo: &MinifyMemo) -> Result<String, String> {
        if self.text.len() < MinifyMemo::SMALLEST {
            return self.minify();
        }
        let mut digest = crate::digest::Running::sha256();
        let _ = digest.write_all(self.text.as_bytes());
        let key = digest.hex();
        if let Some(css) = memo.get(&key) {
            return Ok(css.to_string());
        }
        let css = self.minify()?;
        memo.put(key, Arc::from(css.as_str()));
        Ok(css)
    }

    /// Minifies the rules `batch` at a time. lightningcss minifies a sheet rule after rule,
    /// and a rule meets the rules before it in two ways only: it is merged into the rule just
    /// before it when the two have the same selectors or, once minified, the same declarations
    /// (`.a{color:red}.b{color:#f00}` → `.a,.b{color:red}`, and on down the rules while they
    /// merge), and it removes an earlier rule with the same selectors and properties. No two
    /// rules here share a selector, so only the first can happen, between neighbours: where
    /// the last rule of one minified batch and the first of the next could merge, the two
    /// batches are minified again as one, and the output is the whole sheet's, byte for byte.
    fn minify_in_batches(&self, batch: usize) -> Result<String, String> {
        let text = |from: usize, to: usize| {
            let end = self.starts.get(to).copied().unwrap_or(self.text.len());
            &self.text[self.starts[from]..end]
        };
        let mut out = String::new();
        // The last batch minified, from its first rule, not written until the next one shows
        // that the two cannot merge.
        let mut pending: Option<(usize, StyleSheet)> = None;
        let mut from = 0;
        while from < self.starts.len() {
            let to = (from + batch).min(self.starts.len());
            let sheet = minified(text(from, to))?;
            pending = match pending {
                Some((start, before)) if may_merge(&before, &sheet) => {
                    drop((before, sheet));
                    Some((start, minified(text(start, to))?))
                }
                Some((_, before)) => {
                    out.push_str(&printed(&before)?);
                    Some((from, sheet))
                }
                None => Some((from, sheet)),
            };
            from = to;
        }
        if let Some((_, sheet)) = pending {
            out.push_str(&printed(&sheet)?);
        }
        Ok(out)
    }
}

/// The last few large sheets minified ([`Rules::minify_with`]), shared by the threads of one
/// rewrite.
#[derive(Debug, Default)]
pub struct MinifyMemo {
    /// (SHA-256 of the rules' text, hex; the minified text), newest last.
    kept: Mutex<Vec<(String, Arc<str>)>>,
}

impl MinifyMemo {
    /// Smaller sheets are minified again: cheaper than keeping them.
    const SMALLEST: usize = 64 * 1024;
    /// Results kept: the candidates of one rewrite are priced one after another.
    const KEPT: usize = 2;

    fn get(&self, key: &str) -> Option<Arc<str>> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter()
            .find(|(k, _)| k == key)
            .map(|(_, css)| css.clone())
    }

    fn put(&self, key: String, css: Arc<str>) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(k, _)| *k != key);
        if kept.len() == Self::KEPT {
            kept.remove(0);
        }
        kept.push((key, css));
    }
}

/// `css` parsed and minified with lightningcss's defaults.
fn minified(css: &str) -> Result<StyleSheet<'_>, String> {
    let mut sheet = StyleSheet::parse(css, ParserOptions::default()).map_err(|e| e.to_string())?;
    sheet
        .minify(MinifyOptions::default())
        .map_err(|e| e.to_string())?;
    Ok(sheet)
}

/// A minified sheet printed without whitespace.
fn printed(sheet: &StyleSheet) -> Result<String, String> {
    let options = PrinterOptions {
        minify: true,
        ..PrinterOptions::default()
    };
    Ok(sheet.to_css(options).map_err(|e| e.to_string())?.code)
}

/// Whether minifying `before` and `after` as one sheet could merge the last rule of `before`
/// with the first of `after` ([`Rules::minify_in_batches`]): unless both are style rules
/// whose selectors and declarations differ, say it could.
fn may_merge<'i>(before: &StyleSheet<'i>, after: &StyleSheet<'i>) -> bool {
    let shown = |rule: &&CssRule| !matches!(rule, CssRule::Ignored);
    let last = before.rules.0.iter().rev().find(shown);
    let first = after.rules.0.iter().find(shown);
    match (last, first) {
        (Some(CssRule::Style(a)), Some(CssRule::Style(b))) => {
            a.selectors == b.selectors || a.declarations == b.declarations
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// A large sheet: one rule of its own colour per line.
    fn large_sheet() -> Rules {
        let mut sheet = Rules::default();
        let mut n = 0;
        while sheet.text.len() < MinifyMemo::SMALLEST {
            sheet.push(&format!(".c{n}{{color:#{:06x}}}", n * 40503 % 0x100_0000));
            n += 1;
        }
        sheet
    }

    #[test]
    fn a_memo_answers_for_the_same_rules_and_only_for_them() {
        let memo = MinifyMemo::default();
        let sheet = large_sheet();
        let minified = sheet.minify().unwrap();
        assert!(sheet.minify_with(&memo).unwrap() == minified);
        // The memo now holds that answer: planted, another answer for the same text is used.
        let key = memo.kept.lock().unwrap()[0].0.clone();
        memo.put(key, Arc::from("planted"));
        assert_eq!(sheet.minify_with(&memo).unwrap(), "planted");
        let mut other = large_sheet();
        other.push(".last{color:red}");
        assert!(other.minify_with(&memo).unwrap() == other.minify().unwrap());
        assert!(memo.kept.lock().unwrap().len() <= MinifyMemo::KEPT);
    }

    #[test]
    fn a_small_sheet_is_minified_again_not_kept() {
        let memo = MinifyMemo::default();
        let mut sheet = Rules::default();
        sheet.push(".a{color:#ff0000}");
        assert_eq!(sheet.minify_with(&memo).unwrap(), ".a{color:red}");
        assert!(memo.kept.lock().unwrap().is_empty());
    }

    #[test]
    fn names_are_short_unique_and_do_not_depend_on_other_blocks_order() {
        let blocks: Vec<String> = ["color:red", "color:blue", "text-align:-webkit-center"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let names = class_names(blocks.clone());
        let distinct: BTreeSet<&String> = names.values().collect();
        assert_eq!(distinct.len(), blocks.len());
        assert!(names.values().all(|n| n.len() >= 2
            && n.len() < 8
            && n.chars().next().unwrap().is_ascii_lowercase()));
        let reversed: Vec<String> = blocks.iter().rev().cloned().collect();
        assert_eq!(names, class_names(reversed));
    }

    /// What `unique_prefix_lengths` computes, asked of every other hash for every hash (what
    /// `class_names` did until it was found quadratic).
    fn unique_prefix_lengths_by_asking_every_other(hashes: &[String]) -> Vec<usize> {
        let others_start_with = |i: usize, prefix: &str| {
            (hashes.iter().enumerate()).any(|(j, other)| j != i && other.starts_with(prefix))
        };
        (hashes.iter().enumerate())
            .map(|(i, hash)| {
                let mut len = 2.min(hash.len());
                while len < hash.len() && others_start_with(i, &hash[..len]) {
                    len += 1;
                }
                len
            })
            .collect()
    }

    #[test]
    fn each_name_is_as_long_as_asking_every_other_block_makes_it() {
        // Real hashes, and made-up ones that are equal, prefixes of each other, or shorter
        // than two characters.
        let real: Vec<String> = (0..3000)
            .map(|n| hash_name(&format!("\u{1}{{color:#{n:06x}}}")))
            .collect();
        let made_up: Vec<String> = [
            "a", "ab", "ab", "abc", "abcd", "abd", "b", "b", "bc", "c1", "c12", "c12", "c2", "d",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for hashes in [real, made_up] {
            assert_eq!(
                unique_prefix_lengths(&hashes).0,
                unique_prefix_lengths_by_asking_every_other(&hashes),
                "{hashes:?}"
            );
        }
    }

    fn rules(list: &[&str]) -> Rules {
        let mut rules = Rules::default();
        for rule in list {
            rules.push(rule);
        }
        rules
    }

    #[test]
    fn minify_keeps_vendor_alignment_values() {
        let css = rules(&[".a { text-align: -webkit-center; color: #FF0000 }"])
            .minify()
            .unwrap();
        assert!(css.contains("-webkit-center"), "{css}");
        assert!(!css.contains(' '), "{css}");
    }

    /// The sheet minified whole, as it was before it was minified in batches.
    fn minified_whole(css: &str) -> String {
        printed(&minified(css).unwrap()).unwrap()
    }

    #[test]
    fn a_sheet_minified_in_batches_is_the_sheet_minified_whole() {
        // Rules that lightningcss merges once minified (`red` is `#f00`, `#aabbcc` is `#abc`,
        // runs of them across several batches), rules under their own cells' rule, a rule that
        // minifies to nothing, a URL, and rules that merge with nothing.
        let list = [
            ".a{color:red}",
            ".b{color:#f00}",
            ".c{color:#ff0000}",
            ".d{color:blue}",
            ".e{background-color:#aabbcc}",
            ".f{background-color:#abc}",
            ".g{width:10px}.g>*>tr>*{padding:2px}",
            ".h{padding:2px}",
            ".i{}",
            ".j{padding:2px}",
            ".k{background-image:url(\"a b.gif\")}",
            ".l{color:red}",
            ".m{color:red}",
            ".n{color:red}",
            ".o{color:red}",
            ".p{text-align:-webkit-center;color:red}",
            ".q :link{color:red}",
            ".q :visited{color:red}",
            ".r{color:#f00}",
        ];
        let sheet = rules(&list);
        let whole = minified_whole(sheet.text());
        assert!(whole.contains(".a,.b,.c{"), "{whole}");
        for batch in 1..=list.len() + 1 {
            assert_eq!(
                sheet.minify_in_batches(batch).unwrap(),
                whole,
                "{batch} rules a batch"
            );
        }
        assert_eq!(sheet.minify().unwrap(), whole);
        assert_eq!(Rules::default().minify().unwrap(), "");
    }

    #[test]
    fn a_sheet_that_does_not_parse_is_an_error_in_any_batch() {
        let sheet = rules(&[".a{color:red}", ".b{*zoom:1}", ".c{color:blue}"]);
        for batch in 1..=3 {
            assert!(sheet.minify_in_batches(batch).is_err(), "{batch}");
        }
    }
}
