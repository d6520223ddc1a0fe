//! Which end tag closes which element, and which formatting elements sit in misnested markup:
//! what [`super::Page`] needs to rename an element in the page's bytes without changing how the
//! page parses. Worked out once per parse, from the tree and the source map.

use crate::hash::{Map as HashMap, Set as HashSet};

use super::arena::{Id, Tree};
use super::parse::{Log, Owners, TokKind};
use super::write;

/// Elements other than formatting elements that a caller renames (their end tags are looked
/// for; [`Page::edits`](super::Page::edits) refuses to rename others).
pub(super) const RENAMED: &[&str] = &["center"];

/// Elements the parser copies when markup is misnested (the standard's formatting elements).
pub(super) const FORMATTING: &[&str] = &[
    "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

/// Start-tag token → the end-tag token that closed its element, for formatting elements and
/// [`RENAMED`] ones: the first end tag of the element's name after everything inside the
/// element (its descendants' tags, and the tokens during which the parser made the elements it
/// implied or copied there) and before the next element that follows it in the tree. Elements closed by other tags (an implied end, a
/// misnested end tag the parser ignored) have none, as have the elements of `unpaired` names.
pub(super) fn pair_tags(
    log: &Log,
    own: &Owners,
    unpaired: &HashSet<String>,
    tree: &Tree,
) -> HashMap<usize, usize> {
    let made: HashMap<Id, usize> = log
        .created
        .iter()
        .filter_map(|&(node, token)| Some((node, token?)))
        .collect();
    // Every element in document order with its start tag (or the token during which the parser
    // made it), whether that is its own start tag, and where its subtree ends in this order.
    let mut order: Vec<(Id, usize, bool)> = Vec::new();
    let mut subtree_end: Vec<usize> = Vec::new();
    let mut stack: Vec<(Id, Option<usize>)> = vec![(tree.document(), None)];
    while let Some((node, entered)) = stack.pop() {
        if let Some(i) = entered {
            subtree_end[i] = order.len();
            continue;
        }
        let token = own
            .get(node)
            .map(|t| (t, true))
            .or(made.get(&node).map(|&t| (t, false)));
        if let Some((token, is_own)) = token {
            order.push((node, token, is_own));
            subtree_end.push(0);
            stack.push((node, Some(order.len() - 1)));
        }
        stack.extend(tree.children_rev(node).map(|c| (c, None)));
    }
    let mut end_tags: HashMap<&str, Vec<usize>> = HashMap::default();
    for (index, token) in log.tokens.iter().enumerate() {
        if let (TokKind::End, Some(name)) = (token.kind, token.name.as_deref()) {
            end_tags.entry(name).or_default().push(index);
        }
    }
    // Descendants first (reverse document order), so that an element's end tag is looked for
    // after its descendants' end tags.
    let mut last_inside = vec![0; order.len()];
    let mut pairs = HashMap::default();
    for i in (0..order.len()).rev() {
        let (node, start, is_own) = &order[i];
        let mut last = *start;
        let mut child = i + 1;
        while child < subtree_end[i] {
            last = last.max(last_inside[child]);
            child = subtree_end[child];
        }
        let name = tree.tag(*node).unwrap_or("");
        let next = order.get(subtree_end[i]).map(|(_, t, _)| *t);
        let end = end_tags
            .get(name)
            .filter(|_| *is_own && !write::is_void(name) && !unpaired.contains(name))
            .and_then(|ends| {
                let at = ends.partition_point(|&e| e <= last);
                ends.get(at)
                    .copied()
                    .filter(|&e| next.is_none_or(|n| e < n))
            });
        if let Some(end) = end {
            if FORMATTING.contains(&name) || RENAMED.contains(&name) {
                pairs.insert(*start, end);
            }
            last = end;
        }
        last_inside[i] = last;
    }
    pairs
}

/// Names of the formatting elements the parser copied (reconstruction, adoption agency): which
/// element a copy copies is not recorded, so every element of such a name is misnested.
pub(super) fn copied_names(log: &Log, own: &Owners, tree: &Tree) -> HashSet<String> {
    log.created
        .iter()
        .filter(|&&(node, _)| !own.contains(node))
        .filter_map(|&(node, _)| tree.tag(node))
        .filter(|t| FORMATTING.contains(t))
        .map(str::to_string)
        .collect()
}

/// Formatting elements in misnested markup (see [`Page::is_misnested`](super::Page::is_misnested)): every element of a
/// name the parser copied, or of a name one element of which has no end tag of its own
/// ([`pair_tags`]): one misnested `<nobr>` is closed by the start tag of the next.
pub(super) fn misnested(
    log: &Log,
    own: &Owners,
    tree: &Tree,
    pairs: &HashMap<usize, usize>,
    mut names: HashSet<String>,
) -> HashSet<Id> {
    for &(node, _) in &log.created {
        let Some(tag) = tree.tag(node).filter(|t| FORMATTING.contains(t)) else {
            continue;
        };
        if own
            .get(node)
            .is_none_or(|start| !pairs.contains_key(&start))
        {
            names.insert(tag.to_string());
        }
    }
    log.created
        .iter()
        .filter(|&&(node, _)| tree.tag(node).is_some_and(|t| names.contains(t)))
        .map(|&(node, _)| node)
        .collect()
}
