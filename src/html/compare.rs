//! Structural equality of two DOMs, the proof that an edit of a page's bytes gives the tree the
//! converter built: same nodes in the same order, same element names and namespaces, same
//! attributes (in any order), same text (adjacent text nodes joined, as a parser joins them),
//! comments, doctypes and template contents. Iterative, so that no page is too deep for it.

use markup5ever_rcdom::{Handle, NodeData};

/// One step of a document-order walk.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    Open {
        ns: String,
        name: String,
        attrs: Vec<(String, String, String)>,
    },
    Close,
    Text(String),
    Comment(String),
    Doctype(String, String, String),
    Other,
}

/// The walk of `root`'s children, adjacent text joined.
fn steps(root: &Handle) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    // (node, whether its children are done)
    let mut stack: Vec<(Handle, bool)> = root
        .children
        .borrow()
        .iter()
        .rev()
        .map(|c| (c.clone(), false))
        .collect();
    while let Some((node, closing)) = stack.pop() {
        if closing {
            out.push(Step::Close);
            continue;
        }
        match &node.data {
            NodeData::Text { contents } => match out.last_mut() {
                Some(Step::Text(text)) => text.push_str(&contents.borrow()),
                _ => out.push(Step::Text(contents.borrow().to_string())),
            },
            NodeData::Comment { contents } => out.push(Step::Comment(contents.to_string())),
            NodeData::Doctype {
                name,
                public_id,
                system_id,
            } => out.push(Step::Doctype(
                name.to_string(),
                public_id.to_string(),
                system_id.to_string(),
            )),
            NodeData::Element {
                name,
                attrs,
                template_contents,
                ..
            } => {
                let mut attrs: Vec<(String, String, String)> = attrs
                    .borrow()
                    .iter()
                    .map(|a| {
                        (
                            a.name.ns.to_string(),
                            a.name.local.to_string(),
                            a.value.to_string(),
                        )
                    })
                    .collect();
                attrs.sort();
                out.push(Step::Open {
                    ns: name.ns.to_string(),
                    name: name.local.to_string(),
                    attrs,
                });
                stack.push((node.clone(), true));
                let children = match template_contents.borrow().as_ref() {
                    Some(contents) => contents.children.borrow().clone(),
                    None => node.children.borrow().clone(),
                };
                stack.extend(children.into_iter().rev().map(|c| (c, false)));
            }
            NodeData::Document | NodeData::ProcessingInstruction { .. } => out.push(Step::Other),
        }
    }
    out
}

/// Whether the two documents have the same tree.
pub fn same_tree(a: &Handle, b: &Handle) -> bool {
    steps(a) == steps(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html;

    #[test]
    fn attribute_order_and_split_text_do_not_matter_but_names_and_values_do() {
        let a = html::parse("<p a=1 b=2>one two</p>").unwrap();
        let b = html::parse("<p b=2 a=1>one two</p>").unwrap();
        assert!(same_tree(&a.document, &b.document));
        let p = html::edit::find(&b.document, "p").unwrap();
        html::edit::append_text(&p, "");
        assert!(same_tree(&a.document, &b.document));
        for other in [
            "<p a=1 b=3>one two</p>",
            "<div a=1 b=2>one two</div>",
            "<p a=1 b=2>one</p>",
        ] {
            let c = html::parse(other).unwrap();
            assert!(!same_tree(&a.document, &c.document), "{other}");
        }
    }
}
