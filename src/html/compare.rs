//! Structural equality of two DOMs, the proof that an edit of a page's bytes gives the tree the
//! converter built: same nodes in the same order, same element names and namespaces, same
//! attributes (in any order), same text (adjacent text nodes joined, as a parser joins them),
//! comments, doctypes and template contents. The walk is iterative, so that no page is too
//! deep for it; [`digest`] reduces a tree to one 64-bit hash per step, so that the first tree
//! can be freed before the second is built (the two trees of a 10 MB page need hundreds of MB).

use std::hash::{DefaultHasher, Hash, Hasher};

use markup5ever_rcdom::{Handle, NodeData};

/// One step of a document-order walk.
enum Step {
    Open(Handle),
    Close,
    /// Adjacent text nodes, joined.
    Text(Vec<Handle>),
    Leaf(Handle),
}

/// A document-order walk of a node's children.
struct Walk {
    /// Nodes still to visit (`true`: its children are done, close it).
    stack: Vec<(Handle, bool)>,
    /// Comments are passed over (text on both sides of one is then one run).
    skip_comments: bool,
}

impl Walk {
    fn new(root: &Handle, skip_comments: bool) -> Walk {
        let mut walk = Walk {
            stack: Vec::new(),
            skip_comments,
        };
        walk.push_children(root);
        walk
    }

    /// A node the walk passes over.
    fn skipped(&self, node: &Handle) -> bool {
        self.skip_comments && matches!(node.data, NodeData::Comment { .. })
    }

    fn push_children(&mut self, node: &Handle) {
        let contents = match &node.data {
            NodeData::Element {
                template_contents, ..
            } => template_contents.borrow().clone(),
            _ => None,
        };
        let parent = contents.as_ref().unwrap_or(node);
        let children = parent.children.borrow();
        self.stack
            .extend(children.iter().rev().map(|c| (c.clone(), false)));
    }

    fn next(&mut self) -> Option<Step> {
        let (node, closing) = loop {
            let (node, closing) = self.stack.pop()?;
            if closing || !self.skipped(&node) {
                break (node, closing);
            }
        };
        if closing {
            return Some(Step::Close);
        }
        Some(match &node.data {
            NodeData::Text { .. } => {
                let mut run = vec![node];
                while self
                    .stack
                    .last()
                    .is_some_and(|(n, closing)| !closing && (is_text(n) || self.skipped(n)))
                {
                    run.extend(self.stack.pop().map(|(n, _)| n).filter(is_text));
                }
                Step::Text(run)
            }
            NodeData::Element { .. } => {
                self.stack.push((node.clone(), true));
                self.push_children(&node);
                Step::Open(node)
            }
            _ => Step::Leaf(node),
        })
    }
}

fn is_text(node: &Handle) -> bool {
    matches!(node.data, NodeData::Text { .. })
}

/// One hash per step of the walk of `root`'s children (SipHash with fixed keys: a wrong edit
/// passes only if some step's hash collides, about 2⁻⁶⁴).
pub fn digest(root: &Handle) -> Vec<u64> {
    digest_with(root, false)
}

/// [`digest`] of the tree as `--minify-html` leaves it: comments passed over, and white space
/// in text outside the elements that keep it (`minify::KEEPS_WHITE_SPACE`, MathML) reduced to
/// a space or its line breaks (`super::minify`).
pub fn digest_minified(root: &Handle) -> Vec<u64> {
    digest_with(root, true)
}

fn digest_with(root: &Handle, minified: bool) -> Vec<u64> {
    let mut walk = Walk::new(root, minified);
    let mut out = Vec::new();
    // Per open element: whether its text keeps its white space.
    let mut keeps: Vec<bool> = Vec::new();
    while let Some(step) = walk.next() {
        let mut h = DefaultHasher::new();
        match step {
            Step::Close => {
                keeps.pop();
                h.write_u8(1)
            }
            Step::Text(run) => {
                h.write_u8(2);
                let mut text = String::new();
                for node in &run {
                    if let NodeData::Text { contents } = &node.data {
                        text.push_str(&contents.borrow());
                    }
                }
                if minified && !keeps.last().copied().unwrap_or(false) {
                    h.write(reduced_white_space(&text).as_bytes());
                } else {
                    h.write(text.as_bytes());
                }
            }
            Step::Open(node) => {
                h.write_u8(3);
                if let NodeData::Element { name, .. } = &node.data {
                    let keep = keeps.last().copied().unwrap_or(false)
                        || name.ns != html5ever::ns!(html)
                        || super::minify::KEEPS_WHITE_SPACE.contains(&&*name.local);
                    keeps.push(keep);
                }
                if let NodeData::Element { name, attrs, .. } = &node.data {
                    name.hash(&mut h);
                    let attrs = attrs.borrow();
                    let mut sorted: Vec<(&html5ever::QualName, &str)> =
                        attrs.iter().map(|a| (&a.name, &*a.value)).collect();
                    sorted.sort();
                    sorted.hash(&mut h);
                }
            }
            Step::Leaf(node) => {
                h.write_u8(4);
                match &node.data {
                    NodeData::Comment { contents } => contents.hash(&mut h),
                    NodeData::Doctype {
                        name,
                        public_id,
                        system_id,
                    } => (name, public_id, system_id).hash(&mut h),
                    NodeData::ProcessingInstruction { target, contents } => {
                        (target, contents).hash(&mut h)
                    }
                    _ => {}
                }
            }
        }
        out.push(h.finish());
    }
    out
}

/// Every run of ASCII white space as `--minify-html` writes it: its line breaks, or one space.
fn reduced_white_space(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run: Option<usize> = None;
    for c in text.chars() {
        if matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c') {
            *run.get_or_insert(0) += usize::from(c == '\n');
        } else {
            if let Some(breaks) = run.take() {
                push_run(&mut out, breaks);
            }
            out.push(c);
        }
    }
    if let Some(breaks) = run {
        push_run(&mut out, breaks);
    }
    out
}

fn push_run(out: &mut String, breaks: usize) {
    match breaks {
        0 => out.push(' '),
        n => out.extend(std::iter::repeat_n('\n', n)),
    }
}

/// Whether the two documents have the same tree.
#[cfg(test)]
fn same_tree(a: &Handle, b: &Handle) -> bool {
    digest(a) == digest(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html;

    #[test]
    fn attribute_order_and_split_text_do_not_matter_but_names_and_values_do() {
        let a = html::parse("<p a=1 b=2>one two<!--c--></p>").unwrap();
        let b = html::parse("<p b=2 a=1>one two<!--c--></p>").unwrap();
        assert!(same_tree(&a.document, &b.document));
        // "one " + "two" next to each other read "one two", as a parser would join them.
        let p = html::edit::find(&b.document, "p").unwrap();
        if let NodeData::Text { contents } = &p.children.borrow()[0].data {
            *contents.borrow_mut() = "one ".into();
        }
        html::edit::append_text(&p, "two");
        p.children.borrow_mut().swap(1, 2);
        assert!(same_tree(&a.document, &b.document));
        for other in [
            "<p a=1 b=3>one two<!--c--></p>",
            "<div a=1 b=2>one two<!--c--></div>",
            "<p a=1 b=2>one<!--c--></p>",
            "<p a=1 b=2>one two<!--d--></p>",
            "<p a=1 b=2>one two<!--c--></p><br>",
        ] {
            let c = html::parse(other).unwrap();
            assert!(!same_tree(&a.document, &c.document), "{other}");
        }
    }
}
