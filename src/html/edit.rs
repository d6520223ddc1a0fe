//! Small DOM helpers over markup5ever_rcdom, so that stages outside `html/` can read and edit
//! elements (read and drop attributes, make new elements) without importing html5ever
//! themselves. Structural edits of a parsed page (rename, unwrap, remove, append to the head)
//! go through [`super::Page`], which logs them to write them back into the page's bytes.

use std::cell::RefCell;
use std::rc::Rc;

use html5ever::{ns, Attribute, LocalName, QualName};
use markup5ever_rcdom::{Handle, Node, NodeData};

/// The lower-case local name of an element, or `None` for other nodes.
pub fn tag(node: &Handle) -> Option<&str> {
    match &node.data {
        NodeData::Element { name, .. } => Some(&name.local),
        _ => None,
    }
}

/// The value of an attribute, if the element has it.
pub fn attr(node: &Handle, name: &str) -> Option<String> {
    match &node.data {
        NodeData::Element { attrs, .. } => attrs
            .borrow()
            .iter()
            .find(|a| &*a.name.local == name)
            .map(|a| a.value.to_string()),
        _ => None,
    }
}

/// The names of all attributes of an element, in source order.
pub fn attr_names(node: &Handle) -> Vec<String> {
    match &node.data {
        NodeData::Element { attrs, .. } => attrs
            .borrow()
            .iter()
            .map(|a| a.name.local.to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// Removes an attribute; returns whether it was there.
pub fn remove_attr(node: &Handle, name: &str) -> bool {
    if let NodeData::Element { attrs, .. } = &node.data {
        let mut attrs = attrs.borrow_mut();
        let before = attrs.len();
        attrs.retain(|a| &*a.name.local != name);
        return attrs.len() != before;
    }
    false
}

/// Sets (or replaces) an attribute.
pub fn set_attr(node: &Handle, name: &str, value: &str) {
    if let NodeData::Element { attrs, .. } = &node.data {
        let mut attrs = attrs.borrow_mut();
        if let Some(a) = attrs.iter_mut().find(|a| &*a.name.local == name) {
            a.value = value.into();
        } else {
            attrs.push(Attribute {
                name: QualName::new(None, ns!(), LocalName::from(name)),
                value: value.into(),
            });
        }
    }
}

/// Makes a new HTML element with the given attributes and no children.
pub fn new_element(tag: &str, attrs: &[(&str, &str)]) -> Handle {
    Node::new(NodeData::Element {
        name: QualName::new(None, ns!(html), LocalName::from(tag)),
        attrs: RefCell::new(
            attrs
                .iter()
                .map(|(n, v)| Attribute {
                    name: QualName::new(None, ns!(), LocalName::from(*n)),
                    value: (*v).into(),
                })
                .collect(),
        ),
        template_contents: RefCell::new(None),
        mathml_annotation_xml_integration_point: false,
    })
}

/// Replaces `node` in its parent by a new element named `tag` that takes over the old
/// element's attributes and children (rcdom cannot rename in place). Returns the new element.
pub(super) fn rename(node: &Handle, tag: &str) -> Handle {
    let attrs = match &node.data {
        NodeData::Element { attrs, .. } => attrs.borrow().clone(),
        _ => Vec::new(),
    };
    let new = new_element(tag, &[]);
    if let NodeData::Element {
        attrs: new_attrs, ..
    } = &new.data
    {
        *new_attrs.borrow_mut() = attrs;
    }
    let children: Vec<Handle> = node.children.borrow_mut().drain(..).collect();
    for child in &children {
        child.parent.set(Some(Rc::downgrade(&new)));
    }
    *new.children.borrow_mut() = children;
    replace_with(node, std::slice::from_ref(&new));
    new
}

/// Removes `node`, putting its children where it was.
pub(super) fn unwrap(node: &Handle) {
    let children: Vec<Handle> = node.children.borrow_mut().drain(..).collect();
    replace_with(node, &children);
}

/// Removes `node` and everything in it.
pub(super) fn remove(node: &Handle) {
    replace_with(node, &[]);
}

fn replace_with(node: &Handle, replacements: &[Handle]) {
    let Some(parent) = node.parent.take().and_then(|weak| weak.upgrade()) else {
        return;
    };
    let mut siblings = parent.children.borrow_mut();
    if let Some(i) = siblings.iter().position(|c| Rc::ptr_eq(c, node)) {
        for r in replacements {
            r.parent.set(Some(Rc::downgrade(&parent)));
        }
        siblings.splice(i..=i, replacements.iter().cloned());
    }
}

/// Appends `child` as the last child of `parent`.
pub fn append(parent: &Handle, child: Handle) {
    child.parent.set(Some(Rc::downgrade(parent)));
    parent.children.borrow_mut().push(child);
}

/// The parent element, if any.
pub fn parent(node: &Handle) -> Option<Handle> {
    let weak = node.parent.take();
    let parent = weak.as_ref().and_then(|w| w.upgrade());
    node.parent.set(weak);
    parent
}

/// Whether the node sits between two text nodes, not both whitespace (removing it would join
/// text a browser shows into one text node).
pub fn between_text(node: &Handle) -> bool {
    let Some(parent) = parent(node) else {
        return false;
    };
    let children = parent.children.borrow();
    let Some(at) = children.iter().position(|c| Rc::ptr_eq(c, node)) else {
        return false;
    };
    // Whether the sibling is text, and whether it is all whitespace.
    let text = |i: Option<usize>| match i.and_then(|i| children.get(i)).map(|c| &c.data) {
        Some(NodeData::Text { contents }) => {
            Some(contents.borrow().chars().all(|c| c.is_ascii_whitespace()))
        }
        _ => None,
    };
    match (text(at.checked_sub(1)), text(Some(at + 1))) {
        (Some(a), Some(b)) => !(a && b),
        _ => false,
    }
}

/// Every element under `root` (root included), in document order. Collected first, so the
/// caller may edit the tree while iterating.
pub fn elements(root: &Handle) -> Vec<Handle> {
    descendants(root).collect()
}

/// The elements under `root` (and `root` itself if it is one) in document order, one at a
/// time: for a read-only pass that may stop early. A pass that changes the tree collects them
/// first ([`elements`]).
pub fn descendants(root: &Handle) -> impl Iterator<Item = Handle> {
    let mut stack = vec![root.clone()];
    std::iter::from_fn(move || loop {
        let node = stack.pop()?;
        stack.extend(node.children.borrow().iter().rev().cloned());
        if matches!(node.data, NodeData::Element { .. }) {
            return Some(node);
        }
    })
}

/// The first element named `tag` under `root`, in document order.
pub fn find(root: &Handle, tag_name: &str) -> Option<Handle> {
    descendants(root).find(|e| tag(e) == Some(tag_name))
}

/// The text of a node's direct text children.
pub fn text_of(node: &Handle) -> String {
    let mut text = String::new();
    for child in node.children.borrow().iter() {
        if let NodeData::Text { contents } = &child.data {
            text.push_str(&contents.borrow());
        }
    }
    text
}

/// All the text under `root`, in document order (what a browser's `textContent` gives).
pub fn text_content(root: &Handle) -> String {
    let mut text = String::new();
    let mut stack = vec![root.clone()];
    while let Some(node) = stack.pop() {
        if let NodeData::Text { contents } = &node.data {
            text.push_str(&contents.borrow());
        }
        stack.extend(node.children.borrow().iter().rev().cloned());
    }
    text
}

/// Whether the node is an element in the HTML namespace (not SVG or MathML).
pub fn is_html(node: &Handle) -> bool {
    match &node.data {
        NodeData::Element { name, .. } => name.ns == ns!(html),
        _ => false,
    }
}

/// Appends a text node.
pub fn append_text(parent: &Handle, text: &str) {
    append(
        parent,
        Node::new(NodeData::Text {
            contents: RefCell::new(text.into()),
        }),
    );
}
