//! Small DOM helpers over a parsed page's compact tree ([`super::arena`]), so that stages
//! outside `html/` can read and edit elements (read, set and drop attributes) without importing
//! html5ever themselves. A [`Node`] is a handle: the page's tree and a node's number in it.
//! Structural edits (rename, unwrap, remove, append to the head) go through [`super::Page`],
//! which logs them to write them back into the page's bytes.

use std::cell::RefCell;
use std::rc::Rc;

use html5ever::{ns, Attribute, LocalName, QualName};

use super::arena::{Id, Tree};

/// One node of a page's tree.
#[derive(Clone)]
pub struct Node {
    pub(super) tree: Rc<RefCell<Tree>>,
    pub(super) id: Id,
}

impl Node {
    pub(super) fn new(tree: Rc<RefCell<Tree>>, id: Id) -> Node {
        Node { tree, id }
    }

    /// The node's number in its tree: equal for the same node, whatever handle names it.
    pub fn id(&self) -> Id {
        self.id
    }

    /// How many nodes its tree ever made: every node's [`Id::index`] is below it.
    pub fn nodes_made(&self) -> usize {
        self.tree.borrow().nodes_made()
    }

    fn at(&self, id: Id) -> Node {
        Node::new(Rc::clone(&self.tree), id)
    }
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Node({:?}, {:?})", self.id, tag(self))
    }
}

/// The lower-case local name of an element, or `None` for other nodes.
pub fn tag(node: &Node) -> Option<LocalName> {
    let tree = node.tree.borrow();
    tree.element(node.id).map(|(name, _)| name.local.clone())
}

/// Whether the node is an element named `name`.
pub fn is(node: &Node, name: &str) -> bool {
    node.tree.borrow().tag(node.id) == Some(name)
}

/// The value of an attribute, if the element has it.
pub fn attr(node: &Node, name: &str) -> Option<String> {
    let tree = node.tree.borrow();
    let (_, attrs) = tree.element(node.id)?;
    attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| a.value.to_string())
}

/// The names of all attributes of an element, in source order.
pub fn attr_names(node: &Node) -> Vec<String> {
    let tree = node.tree.borrow();
    tree.element(node.id).map_or_else(Vec::new, |(_, attrs)| {
        attrs.iter().map(|a| a.name.local.to_string()).collect()
    })
}

/// Every attribute of an element as (name, value), in source order.
pub fn attrs(node: &Node) -> Vec<(String, String)> {
    let tree = node.tree.borrow();
    tree.element(node.id).map_or_else(Vec::new, |(_, attrs)| {
        attrs
            .iter()
            .map(|a| (a.name.local.to_string(), a.value.to_string()))
            .collect()
    })
}

/// Removes an attribute; returns whether it was there.
pub fn remove_attr(node: &Node, name: &str) -> bool {
    let mut tree = node.tree.borrow_mut();
    // Asked for an attribute it does not have, the element is not changed (nor kept as it was).
    let has = |(_, attrs): (&QualName, &[Attribute])| attrs.iter().any(|a| &*a.name.local == name);
    if !tree.element(node.id).is_some_and(has) {
        return false;
    }
    let Some(attrs) = tree.attrs_mut(node.id) else {
        return false;
    };
    let before = attrs.len();
    attrs.retain(|a| &*a.name.local != name);
    attrs.len() != before
}

/// Sets (or replaces) an attribute.
pub fn set_attr(node: &Node, name: &str, value: &str) {
    let mut tree = node.tree.borrow_mut();
    let Some(attrs) = tree.attrs_mut(node.id) else {
        return;
    };
    match attrs.iter_mut().find(|a| &*a.name.local == name) {
        Some(a) => a.value = value.into(),
        None => attrs.push(Attribute {
            name: QualName::new(None, ns!(), LocalName::from(name)),
            value: value.into(),
        }),
    }
}

/// The parent node, if any.
pub fn parent(node: &Node) -> Option<Node> {
    let parent = node.tree.borrow().parent(node.id)?;
    Some(node.at(parent))
}

/// Whether the node sits between two text nodes, not both whitespace (removing it would join
/// text a browser shows into one text node).
pub fn between_text(node: &Node) -> bool {
    let tree = node.tree.borrow();
    if tree.parent(node.id).is_none() {
        return false;
    }
    let (before, after) = tree.neighbours(node.id);
    // Whether the sibling is text, and whether it is all whitespace.
    let text = |id: Option<Id>| {
        let text = tree.text(id?)?;
        Some(text.chars().all(|c| c.is_ascii_whitespace()))
    };
    match (text(before), text(after)) {
        (Some(a), Some(b)) => !(a && b),
        _ => false,
    }
}

/// Every element under `root` (root included), in document order. Collected first, so the
/// caller may edit the tree while iterating.
pub fn elements(root: &Node) -> Vec<Node> {
    descendants(root).collect()
}

/// The elements under `root` (and `root` itself if it is one) in document order, one at a
/// time: for a read-only pass that may stop early. A pass that changes the tree collects them
/// first ([`elements`]).
pub fn descendants(root: &Node) -> impl Iterator<Item = Node> + '_ {
    let mut stack = vec![root.id];
    std::iter::from_fn(move || loop {
        let id = stack.pop()?;
        let tree = root.tree.borrow();
        stack.extend(tree.children_rev(id));
        if tree.element(id).is_some() {
            return Some(root.at(id));
        }
    })
}

/// The first element named `tag` under `root`, in document order.
pub fn find(root: &Node, tag_name: &str) -> Option<Node> {
    descendants(root).find(|e| is(e, tag_name))
}

/// The text of a node's direct text children.
pub fn text_of(node: &Node) -> String {
    let tree = node.tree.borrow();
    let mut text = String::new();
    for child in tree.children(node.id) {
        if let Some(t) = tree.text(child) {
            text.push_str(t);
        }
    }
    text
}

/// All the text under `root`, in document order (what a browser's `textContent` gives).
pub fn text_content(root: &Node) -> String {
    let tree = root.tree.borrow();
    let mut text = String::new();
    let mut stack = vec![root.id];
    while let Some(id) = stack.pop() {
        if let Some(t) = tree.text(id) {
            text.push_str(t);
        }
        stack.extend(tree.children_rev(id));
    }
    text
}

/// Whether the node is an element in the HTML namespace (not SVG or MathML).
pub fn is_html(node: &Node) -> bool {
    let tree = node.tree.borrow();
    tree.element(node.id)
        .is_some_and(|(name, _)| name.ns == ns!(html))
}

/// A new element the rewrite adds to a page's head: its name, attributes and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewElement {
    pub tag: String,
    pub attrs: Vec<(String, String)>,
    pub text: String,
}

impl NewElement {
    /// An element named `tag` with these attributes and no text.
    pub fn new(tag: &str, attrs: &[(&str, &str)]) -> NewElement {
        NewElement {
            tag: tag.to_string(),
            attrs: attrs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            text: String::new(),
        }
    }
}
