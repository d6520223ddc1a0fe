//! The CSS attached to one converted element: its own declarations and the rules under it
//! (`:link`, the cells of a table), written as one combined rule or one rule per declaration.

use std::collections::HashMap;

use super::rules::Decl;
use super::SELF;

/// Selector suffix for the cells of a table (after the table's class).
pub(super) const CELLS: &str = ">*>tr>*";

/// The declarations of one conversion, each kept once: an element's [`Style`] holds their
/// numbers. (A 3 MB page of 18,000 styled tables held a pair of strings for every declaration
/// of every element, 10 MB.)
#[derive(Default)]
pub(super) struct Decls {
    list: Vec<Decl>,
    numbers: HashMap<Decl, u32>,
}

impl Decls {
    /// The number of `decl`, given on first sight.
    fn number(&mut self, decl: Decl) -> u32 {
        let next = self.list.len() as u32;
        *self.numbers.entry(decl).or_insert_with_key(|decl| {
            self.list.push(decl.clone());
            next
        })
    }

    fn get(&self, number: u32) -> &Decl {
        &self.list[number as usize]
    }
}

/// CSS attached to one element: its own declarations (numbers in the conversion's [`Decls`])
/// and rules under it (`:link`…).
#[derive(Default, Clone)]
pub(super) struct Style {
    own: Vec<u32>,
    pub(super) nested: Vec<(String, Vec<Decl>)>,
}

impl Style {
    pub(super) fn set(&mut self, decl: Decl, decls: &mut Decls) {
        self.own.retain(|&n| decls.get(n).0 != decl.0);
        self.own.push(decls.number(decl));
    }

    /// The element's own declarations.
    pub(super) fn own(&self, decls: &Decls) -> Vec<Decl> {
        self.own.iter().map(|&n| decls.get(n).clone()).collect()
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

    pub(super) fn block(decls: &[Decl]) -> String {
        let mut sorted = decls.to_vec();
        sorted.sort();
        sorted
            .iter()
            .map(|(p, v)| format!("{p}:{v}"))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// The rule keys of this element's classes: one combined rule, or with `atomic` one rule
    /// per declaration (plus one for the nested rules), which more elements share.
    pub(super) fn keys(&self, atomic: bool, decls: &Decls) -> Vec<String> {
        if !atomic {
            return vec![self.key(decls)];
        }
        let mut keys: Vec<String> = self
            .own
            .iter()
            .map(|&n| decls.get(n))
            .map(|(p, v)| format!("{SELF}{{{p}:{v}}}"))
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
            key.push_str(&format!("{SELF}{{{}}}", Self::block(&self.own(decls))));
        }
        for (suffix, decls) in &self.nested {
            key.push_str(&format!("{SELF}{suffix}{{{}}}", Self::block(decls)));
        }
        key
    }
}
