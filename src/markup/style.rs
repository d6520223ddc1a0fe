//! The CSS attached to one converted element: its own declarations and the rules under it
//! (`:link`, the cells of a table), written as one combined rule or one rule per declaration.

use std::collections::hash_map::Entry;
use std::hash::Hash;

use super::rules::Decl;
use super::SELF;
use crate::hash::{Map as HashMap, RandomState};

/// Selector suffix for the cells of a table (after the table's class).
pub(super) const CELLS: &str = ">*>tr>*";

/// The rules under an element's own rule: each selector suffix (`:link`, [`CELLS`]) with its
/// declarations.
pub(super) type Nested = Vec<(String, Vec<Decl>)>;

/// Numbers values in the order they are first seen, for a list the caller keeps in a compact
/// form of its own: found through the hash of the first value with that hash. (A map from
/// the values to their numbers held every declaration and every distinct style a second
/// time, one allocation each: on a 15 MB page with a colour of its own on every row, 30 MB.)
struct Numbering<K> {
    by_hash: HashMap<u64, u32>,
    /// The values whose hash an earlier, different value has.
    others: HashMap<K, u32>,
    len: u32,
    hasher: RandomState,
}

impl<K> Default for Numbering<K> {
    fn default() -> Self {
        Numbering {
            by_hash: HashMap::default(),
            others: HashMap::default(),
            len: 0,
            hasher: RandomState::new(),
        }
    }
}

impl<K: Hash + Eq + Clone> Numbering<K> {
    /// The number of `value`, and whether it is new (then the caller adds it to its list);
    /// `holds(n)` says whether number `n` is `value`.
    fn number(&mut self, value: &K, holds: impl Fn(u32) -> bool) -> (u32, bool) {
        let next = self.len;
        let number = match self.by_hash.entry(self.hasher.hash_one(value)) {
            Entry::Vacant(entry) => *entry.insert(next),
            Entry::Occupied(entry) if holds(*entry.get()) => return (*entry.get(), false),
            Entry::Occupied(_) => *self.others.entry(value.clone()).or_insert(next),
        };
        let new = number == next;
        self.len += u32::from(new);
        (number, new)
    }
}

/// The declarations of one conversion, each kept once: an element's [`Style`] holds their
/// numbers. (A 3 MB page of 18,000 styled tables held a pair of strings for every declaration
/// of every element, 10 MB.) The values are kept in one string, the property names once each.
#[derive(Default)]
pub(super) struct Decls {
    numbering: Numbering<Decl>,
    /// Each declaration's property (its place in `properties`) and where its value ends in
    /// `values`.
    list: Vec<(u32, u32)>,
    properties: Vec<String>,
    values: String,
}

impl Decls {
    /// The number of `decl`, given on first sight.
    fn number(&mut self, decl: Decl) -> u32 {
        let (list, properties, values) = (&self.list, &self.properties, &self.values);
        let holds = |n: u32| get(list, properties, values, n) == (decl.0.as_str(), &decl.1);
        let (number, new) = self.numbering.number(&decl, holds);
        if new {
            let property = match self.properties.iter().position(|p| *p == decl.0) {
                Some(at) => at,
                None => {
                    self.properties.push(decl.0);
                    self.properties.len() - 1
                }
            };
            self.values.push_str(&decl.1);
            self.list.push((property as u32, self.values.len() as u32));
        }
        number
    }

    /// Declaration `number`, as (property, value).
    pub(super) fn get(&self, number: u32) -> (&str, &str) {
        get(&self.list, &self.properties, &self.values, number)
    }
}

/// [`Decls::get`], from its fields.
fn get<'a>(
    list: &[(u32, u32)],
    properties: &'a [String],
    values: &'a str,
    number: u32,
) -> (&'a str, &'a str) {
    let n = number as usize;
    let start = match n {
        0 => 0,
        _ => list[n - 1].1 as usize,
    };
    let (property, end) = list[n];
    (&properties[property as usize], &values[start..end as usize])
}

/// The distinct styles of a page's classed elements, numbered as their slots are: their
/// declaration numbers in one list (a style held a list of its own: 15 MB on a 15 MB page of
/// a colour a row), the few with rules under them apart.
#[derive(Default)]
pub(super) struct Slots {
    numbering: Numbering<Style>,
    /// Each style's declaration numbers, sorted, one style after the other…
    own: Vec<u32>,
    /// …and where each ends.
    ends: Vec<u32>,
    /// The rules under the styles that have some, by slot, in the order of the slots.
    nested: Vec<(u32, Nested)>,
}

impl Slots {
    /// The slot of `style`, given on first sight.
    pub(super) fn number(&mut self, style: &Style) -> u32 {
        let style = style.canonical();
        let (own, ends, nested) = (&self.own, &self.ends, &self.nested);
        let holds = |slot| {
            let (held, under) = parts(own, ends, nested, slot);
            held == style.own && under == style.nested
        };
        let (slot, new) = self.numbering.number(&style, holds);
        if new {
            self.own.extend_from_slice(&style.own);
            self.ends.push(self.own.len() as u32);
            if !style.nested.is_empty() {
                self.nested.push((slot, style.nested));
            }
        }
        slot
    }

    /// Whether no element was given a slot.
    pub(super) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Every slot's style, in the order of the slots.
    pub(super) fn styles(&self) -> impl Iterator<Item = Style> + '_ {
        (0..self.ends.len() as u32).map(|slot| {
            let (own, nested) = parts(&self.own, &self.ends, &self.nested, slot);
            Style {
                own: own.to_vec(),
                nested: nested.to_vec(),
            }
        })
    }
}

/// The style of `slot` in [`Slots`]' fields: its declaration numbers and its rules under it.
type Parts<'a> = (&'a [u32], &'a [(String, Vec<Decl>)]);

fn parts<'a>(own: &'a [u32], ends: &[u32], nested: &'a [(u32, Nested)], slot: u32) -> Parts<'a> {
    let n = slot as usize;
    let start = match n {
        0 => 0,
        _ => ends[n - 1] as usize,
    };
    let under = match nested.binary_search_by_key(&slot, |(s, _)| *s) {
        Ok(at) => &nested[at].1[..],
        Err(_) => &[],
    };
    (&own[start..ends[n] as usize], under)
}

/// CSS attached to one element: its own declarations (numbers in the conversion's [`Decls`])
/// and rules under it (`:link`…).
#[derive(Default, Clone, PartialEq, Eq, Hash)]
pub(super) struct Style {
    own: Vec<u32>,
    pub(super) nested: Nested,
}

impl Style {
    pub(super) fn set(&mut self, decl: Decl, decls: &mut Decls) {
        self.own.retain(|&n| decls.get(n).0 != decl.0);
        self.own.push(decls.number(decl));
    }

    /// The element's own declarations.
    pub(super) fn own(&self, decls: &Decls) -> Vec<Decl> {
        let owned = |(p, v): (&str, &str)| (p.to_string(), v.to_string());
        self.own.iter().map(|&n| owned(decls.get(n))).collect()
    }

    /// Adds declarations to the rule under `suffix`, creating it when needed.
    pub(super) fn set_nested(&mut self, suffix: &str, decls: Vec<Decl>) {
        let at = match self.nested.iter().position(|(s, _)| s == suffix) {
            Some(i) => i,
            None => {
                self.nested.push((suffix.to_string(), Vec::new()));
                self.nested.len() - 1
            }
        };
        for (p, v) in decls {
            let rule = &mut self.nested[at].1;
            rule.retain(|(q, _)| *q != p);
            rule.push((p, v));
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.own.is_empty() && self.nested.is_empty()
    }

    /// The style with its own declarations in the order of their numbers: two styles with
    /// the same rules are then equal ([`Style::key`] sorts them by their text).
    pub(super) fn canonical(&self) -> Style {
        let mut own = self.own.clone();
        own.sort_unstable();
        Style {
            own,
            nested: self.nested.clone(),
        }
    }

    /// The declarations as CSS, sorted: `p:v;q:w`.
    pub(super) fn block(decls: &[Decl]) -> String {
        let mut block = String::new();
        push_block(
            &mut block,
            decls.iter().map(|(p, v)| (p.as_str(), v.as_str())),
        );
        block
    }

    /// The rule keys of this element's classes: one combined rule, or with `atomic` one rule
    /// per declaration (plus one for the nested rules), which more elements share.
    pub(super) fn keys(&self, atomic: bool, decls: &Decls) -> Vec<String> {
        if !atomic {
            return vec![self.key(decls)];
        }
        let mut keys: Vec<String> = (self.own.iter())
            .map(|&n| {
                let (p, v) = decls.get(n);
                let mut key = String::with_capacity(p.len() + v.len() + 4);
                key.extend([SELF, '{']);
                key.extend([p, ":", v, "}"]);
                key
            })
            .collect();
        if !self.nested.is_empty() {
            let nested = Style {
                own: Vec::new(),
                nested: self.nested.clone(),
            };
            keys.push(nested.key(decls));
        }
        keys.sort();
        keys
    }

    /// The rule key: CSS with `\u{1}` for the class selector.
    pub(super) fn key(&self, decls: &Decls) -> String {
        let mut key = String::new();
        if !self.own.is_empty() {
            key.extend([SELF, '{']);
            push_block(&mut key, self.own.iter().map(|&n| decls.get(n)));
            key.push('}');
        }
        for (suffix, decls) in &self.nested {
            key.push(SELF);
            key.extend([suffix, "{"]);
            push_block(
                &mut key,
                decls.iter().map(|(p, v)| (p.as_str(), v.as_str())),
            );
            key.push('}');
        }
        key
    }
}

/// Writes `decls` sorted, as `p:v;q:w`, without a string for each.
fn push_block<'a>(out: &mut String, decls: impl Iterator<Item = (&'a str, &'a str)>) {
    let mut sorted: Vec<(&str, &str)> = decls.collect();
    sorted.sort_unstable();
    for (i, (p, v)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(';');
        }
        out.extend([p, ":", v]);
    }
}
