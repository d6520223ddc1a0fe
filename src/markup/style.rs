//! The CSS attached to one converted element: its own declarations and the rules under it
//! (`:link`, the cells of a table), written as one combined rule or one rule per declaration.

use super::rules::Decl;
use super::SELF;

/// Selector suffix for the cells of a table (after the table's class).
pub(super) const CELLS: &str = ">*>tr>*";

/// CSS attached to one element: its own declarations and rules under it (`:link`…).
#[derive(Default, Clone)]
pub(super) struct Style {
    pub(super) own: Vec<Decl>,
    pub(super) nested: Vec<(String, Vec<Decl>)>,
}

impl Style {
    pub(super) fn set(&mut self, (p, v): Decl) {
        self.own.retain(|(q, _)| *q != p);
        self.own.push((p, v));
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
    pub(super) fn keys(&self, atomic: bool) -> Vec<String> {
        if !atomic {
            return vec![self.key()];
        }
        let mut keys: Vec<String> = self
            .own
            .iter()
            .map(|(p, v)| format!("{SELF}{{{p}:{v}}}"))
            .collect();
        if !self.nested.is_empty() {
            let nested = Style {
                own: Vec::new(),
                nested: self.nested.clone(),
            };
            keys.push(nested.key());
        }
        keys.sort();
        keys
    }

    /// The rule key: CSS with `\u{1}` for the class selector.
    pub(super) fn key(&self) -> String {
        let mut key = String::new();
        if !self.own.is_empty() {
            key.push_str(&format!("{SELF}{{{}}}", Self::block(&self.own)));
        }
        for (suffix, decls) in &self.nested {
            key.push_str(&format!("{SELF}{suffix}{{{}}}", Self::block(decls)));
        }
        key
    }
}
