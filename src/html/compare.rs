//! Structural equality of two DOMs, the proof that an edit of a page's bytes gives the tree the
//! converter built: same nodes in the same order, same element names and namespaces, same
//! attributes (in any order), same text (adjacent text nodes joined, as a parser joins them),
//! comments, doctypes and template contents. The walk is iterative, so that no page is too
//! deep for it; `digest` reduces a tree to a [`Digest`] of a few bytes (a 64-bit hash of each
//! step, folded as the walk goes), so that the first tree can be freed before the second is
//! built (the two trees of a 10 MB page need hundreds of MB) and no list of the steps is held.
//! The trees are compact [`Tree`]s (`super::arena`); the tests' oracle, `RcDom`'s tree, is
//! walked by the same code, so equal trees give equal digests whichever kind holds them.

use std::hash::{DefaultHasher, Hash, Hasher};

use html5ever::tendril::StrTendril;
use html5ever::{Attribute, QualName};
#[cfg(test)]
use markup5ever_rcdom::{Handle, NodeData};

use super::arena::{self, Id, Kind, Tree};

/// A comment, doctype or processing instruction, as hashed.
enum LeafRef<'a> {
    Comment(&'a StrTendril),
    Doctype(&'a StrTendril, &'a StrTendril, &'a StrTendril),
    Pi(&'a StrTendril, &'a StrTendril),
}

/// What the walk needs of a tree: the compact [`Tree`], and in tests `RcDom`'s, are walked
/// step for step by the same code.
trait Nodes {
    type N: Clone;
    fn is_text(&self, node: &Self::N) -> bool;
    fn is_comment(&self, node: &Self::N) -> bool;
    fn is_element(&self, node: &Self::N) -> bool;
    /// Pushes the children (a template's contents instead) last to first.
    fn push_children(&self, node: &Self::N, stack: &mut Vec<(Self::N, bool)>);
    fn push_text(&self, node: &Self::N, text: &mut String);
    fn element(&self, node: &Self::N, f: &mut dyn FnMut(&QualName, &[Attribute]));
    fn leaf(&self, node: &Self::N, f: &mut dyn FnMut(LeafRef<'_>));
}

/// `RcDom` nodes (the tests compare both trees).
#[cfg(test)]
struct RcNodes;

#[cfg(test)]
impl Nodes for RcNodes {
    type N = Handle;

    fn is_text(&self, node: &Handle) -> bool {
        matches!(node.data, NodeData::Text { .. })
    }

    fn is_comment(&self, node: &Handle) -> bool {
        matches!(node.data, NodeData::Comment { .. })
    }

    fn is_element(&self, node: &Handle) -> bool {
        matches!(node.data, NodeData::Element { .. })
    }

    fn push_children(&self, node: &Handle, stack: &mut Vec<(Handle, bool)>) {
        let contents = match &node.data {
            NodeData::Element {
                template_contents, ..
            } => template_contents.borrow().clone(),
            _ => None,
        };
        let parent = contents.as_ref().unwrap_or(node);
        let children = parent.children.borrow();
        stack.extend(children.iter().rev().map(|c| (c.clone(), false)));
    }

    fn push_text(&self, node: &Handle, text: &mut String) {
        if let NodeData::Text { contents } = &node.data {
            text.push_str(&contents.borrow());
        }
    }

    fn element(&self, node: &Handle, f: &mut dyn FnMut(&QualName, &[Attribute])) {
        if let NodeData::Element { name, attrs, .. } = &node.data {
            f(name, &attrs.borrow());
        }
    }

    fn leaf(&self, node: &Handle, f: &mut dyn FnMut(LeafRef<'_>)) {
        match &node.data {
            NodeData::Comment { contents } => f(LeafRef::Comment(contents)),
            NodeData::Doctype {
                name,
                public_id,
                system_id,
            } => f(LeafRef::Doctype(name, public_id, system_id)),
            NodeData::ProcessingInstruction { target, contents } => {
                f(LeafRef::Pi(target, contents))
            }
            _ => {}
        }
    }
}

impl Nodes for Tree {
    type N = Id;

    fn is_text(&self, node: &Id) -> bool {
        matches!(self.kind(*node), Kind::Text(_))
    }

    fn is_comment(&self, node: &Id) -> bool {
        matches!(self.kind(*node), Kind::Leaf(arena::Leaf::Comment(_)))
    }

    fn is_element(&self, node: &Id) -> bool {
        matches!(self.kind(*node), Kind::Element(..))
    }

    fn push_children(&self, node: &Id, stack: &mut Vec<(Id, bool)>) {
        let parent = self.template_contents(*node).unwrap_or(*node);
        stack.extend(self.children_rev(parent).map(|c| (c, false)));
    }

    fn push_text(&self, node: &Id, text: &mut String) {
        if let Kind::Text(contents) = self.kind(*node) {
            text.push_str(contents);
        }
    }

    fn element(&self, node: &Id, f: &mut dyn FnMut(&QualName, &[Attribute])) {
        if let Kind::Element(name, attrs) = self.kind(*node) {
            f(name, attrs);
        }
    }

    fn leaf(&self, node: &Id, f: &mut dyn FnMut(LeafRef<'_>)) {
        match self.kind(*node) {
            Kind::Leaf(arena::Leaf::Comment(contents)) => f(LeafRef::Comment(contents)),
            Kind::Leaf(arena::Leaf::Doctype {
                name,
                public_id,
                system_id,
            }) => f(LeafRef::Doctype(name, public_id, system_id)),
            Kind::Leaf(arena::Leaf::Pi { target, contents }) => f(LeafRef::Pi(target, contents)),
            _ => {}
        }
    }
}

/// One step of a document-order walk.
enum Step<N> {
    Open(N),
    Close,
    /// Adjacent text nodes, joined.
    Text(Vec<N>),
    Leaf(N),
}

/// A document-order walk of a node's children.
struct Walk<'t, T: Nodes> {
    tree: &'t T,
    /// Nodes still to visit (`true`: its children are done, close it).
    stack: Vec<(T::N, bool)>,
    /// Comments are passed over (text on both sides of one is then one run).
    skip_comments: bool,
}

impl<'t, T: Nodes> Walk<'t, T> {
    fn new(tree: &'t T, root: &T::N, skip_comments: bool) -> Self {
        let mut walk = Walk {
            tree,
            stack: Vec::new(),
            skip_comments,
        };
        tree.push_children(root, &mut walk.stack);
        walk
    }

    /// A node the walk passes over.
    fn skipped(&self, node: &T::N) -> bool {
        self.skip_comments && self.tree.is_comment(node)
    }

    fn next(&mut self) -> Option<Step<T::N>> {
        let (node, closing) = loop {
            let (node, closing) = self.stack.pop()?;
            if closing || !self.skipped(&node) {
                break (node, closing);
            }
        };
        if closing {
            return Some(Step::Close);
        }
        let tree = self.tree;
        Some(if tree.is_text(&node) {
            let mut run = vec![node];
            while self
                .stack
                .last()
                .is_some_and(|(n, closing)| !closing && (tree.is_text(n) || self.skipped(n)))
            {
                run.extend(self.stack.pop().map(|(n, _)| n).filter(|n| tree.is_text(n)));
            }
            Step::Text(run)
        } else if tree.is_element(&node) {
            self.stack.push((node.clone(), true));
            tree.push_children(&node, &mut self.stack);
            Step::Open(node)
        } else {
            Step::Leaf(node)
        })
    }
}

/// A tree reduced to the number of steps of its walk and the hash of their hashes, in order
/// (SipHash with fixed keys: a wrong edit passes only if the fold collides, about 2⁻⁶⁴).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digest {
    steps: u64,
    hash: u64,
}

/// The [`Digest`] of the walk of `root`'s children.
#[cfg(test)]
pub fn digest(root: &Handle) -> Digest {
    digest_with(&RcNodes, root, false)
}

/// `digest` of a compact tree (the same steps give the same digest).
pub fn digest_tree(tree: &Tree) -> Digest {
    digest_with(tree, &tree.document(), false)
}

/// [`digest_tree`] of the page as `--minify-html` leaves it: comments passed over, and white
/// space in text outside the elements that keep it (`minify::KEEPS_WHITE_SPACE`, MathML)
/// reduced to a space or its line breaks (`super::minify`).
pub fn digest_minified(tree: &Tree) -> Digest {
    digest_with(tree, &tree.document(), true)
}

fn digest_with<T: Nodes>(tree: &T, root: &T::N, minified: bool) -> Digest {
    let mut walk = Walk::new(tree, root, minified);
    let (mut steps, mut fold) = (0u64, DefaultHasher::new());
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
                    tree.push_text(node, &mut text);
                }
                if minified && !keeps.last().copied().unwrap_or(false) {
                    h.write(reduced_white_space(&text).as_bytes());
                } else {
                    h.write(text.as_bytes());
                }
            }
            Step::Open(node) => {
                h.write_u8(3);
                tree.element(&node, &mut |name, attrs| {
                    let keep = keeps.last().copied().unwrap_or(false)
                        || name.ns != html5ever::ns!(html)
                        || super::minify::KEEPS_WHITE_SPACE.contains(&&*name.local);
                    keeps.push(keep);
                    name.hash(&mut h);
                    let mut sorted: Vec<(&QualName, &str)> =
                        attrs.iter().map(|a| (&a.name, &*a.value)).collect();
                    sorted.sort();
                    sorted.hash(&mut h);
                });
            }
            Step::Leaf(node) => {
                h.write_u8(4);
                tree.leaf(&node, &mut |leaf| match leaf {
                    LeafRef::Comment(contents) => contents.hash(&mut h),
                    LeafRef::Doctype(name, public_id, system_id) => {
                        (name, public_id, system_id).hash(&mut h)
                    }
                    LeafRef::Pi(target, contents) => (target, contents).hash(&mut h),
                });
            }
        }
        steps += 1;
        fold.write_u64(h.finish());
    }
    Digest {
        steps,
        hash: fold.finish(),
    }
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

    /// `RcDom`'s tree of a page.
    fn parse(text: &str) -> markup5ever_rcdom::RcDom {
        use html5ever::tendril::TendrilSink;
        html5ever::parse_document(markup5ever_rcdom::RcDom::default(), Default::default()).one(text)
    }

    #[test]
    fn attribute_order_and_split_text_do_not_matter_but_names_and_values_do() {
        let a = parse("<p a=1 b=2>one two<!--c--></p>");
        let b = parse("<p b=2 a=1>one two<!--c--></p>");
        assert!(same_tree(&a.document, &b.document));
        // "one " + "two" next to each other read "one two", as a parser would join them.
        let body = b.document.children.borrow()[0].children.borrow()[1].clone();
        let p = body.children.borrow()[0].clone();
        if let NodeData::Text { contents } = &p.children.borrow()[0].data {
            *contents.borrow_mut() = "one ".into();
        }
        let two = markup5ever_rcdom::Node::new(NodeData::Text {
            contents: std::cell::RefCell::new("two".into()),
        });
        p.children.borrow_mut().insert(1, two);
        assert!(same_tree(&a.document, &b.document));
        for other in [
            "<p a=1 b=3>one two<!--c--></p>",
            "<div a=1 b=2>one two<!--c--></div>",
            "<p a=1 b=2>one<!--c--></p>",
            "<p a=1 b=2>one two<!--d--></p>",
            "<p a=1 b=2>one two<!--c--></p><br>",
        ] {
            let c = parse(other);
            assert!(!same_tree(&a.document, &c.document), "{other}");
        }
    }
}
