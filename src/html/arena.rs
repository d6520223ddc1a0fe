//! A compact tree for the parses that only read a page (its references, the proof that an
//! edit gives the converter's tree, the minifier's proof). `RcDom` costs about 150 bytes a
//! node (an `Rc` with two `RefCell`s, a child `Vec` each, a weak parent) and as much again in
//! allocator work to build and free; here a node is 32 bytes in one `Vec`, linked by index,
//! element names are interned, attributes and text live in side tables, and the text a pass
//! does not read is not kept at all. A 15 MB page of `<b>x</b>` took 670 MB with `RcDom`.
//!
//! The tree is the one `RcDom` builds from the same tokens, step for step (text joined to a
//! text node before it, template contents in a fragment of their own, the same depth guard as
//! [`super::parse`]); `html::tests` checks both trees give the same digest and references on
//! every page of the corpora.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use html5ever::buffer_queue::BufferQueue;
use html5ever::interface::{ElemName, ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{Attribute, LocalName, Namespace, QualName, TokenizerResult};

use super::parse::MAX_DEPTH;
use super::source::Source;

const NONE: u32 = u32::MAX;

/// A node of a [`Tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Id(u32);

/// Which text nodes a parse keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepText {
    /// Every one.
    All,
    /// Only the text of `style` elements (all a reference scan reads).
    StyleOnly,
}

#[derive(Debug, Clone, Copy)]
enum Data {
    Document,
    /// Indexes into [`Tree::names`] and [`Tree::attrs`] (`NONE`: no attributes).
    Element {
        name: u32,
        attrs: u32,
    },
    /// Index into [`Tree::texts`].
    Text(u32),
    /// Index into [`Tree::leaves`].
    Leaf(u32),
}

#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    first: u32,
    last: u32,
    prev: u32,
    next: u32,
    data: Data,
}

/// A comment, doctype or processing instruction.
#[derive(Debug)]
pub enum Leaf {
    Comment(StrTendril),
    Doctype {
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    },
    Pi {
        target: StrTendril,
        contents: StrTendril,
    },
}

/// What one node is.
pub enum Kind<'a> {
    Document,
    Element(&'a QualName, &'a [Attribute]),
    Text(&'a StrTendril),
    Leaf(&'a Leaf),
}

/// A parsed page (see the module documentation).
#[derive(Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    names: Vec<QualName>,
    attrs: Vec<Vec<Attribute>>,
    texts: Vec<StrTendril>,
    leaves: Vec<Leaf>,
    /// Template element → its contents (a document fragment).
    templates: HashMap<u32, u32>,
    /// MathML `annotation-xml` elements that are HTML integration points.
    integration_points: HashSet<u32>,
    quirks: QuirksMode,
}

/// A page nests deeper than [`MAX_DEPTH`] elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep;

/// The shadow bytes fed to the tokenizer at a time (cut after a `>`, like every piece).
const CHUNK: usize = 1 << 16;

/// Parses `source` into a [`Tree`], or says it nests too deep.
pub fn parse(source: &Source<'_>, keep: KeepText) -> Result<Tree, TooDeep> {
    let sink = Sink {
        tree: RefCell::new(Tree {
            nodes: vec![Node::new(Data::Document)],
            names: Vec::new(),
            attrs: Vec::new(),
            texts: Vec::new(),
            leaves: Vec::new(),
            templates: HashMap::new(),
            integration_points: HashSet::new(),
            quirks: QuirksMode::NoQuirks,
        }),
        name_ids: RefCell::new(HashMap::new()),
        keep,
        too_deep: Cell::new(false),
    };
    let guard = Guard {
        builder: TreeBuilder::new(sink, TreeBuilderOpts::default()),
    };
    let tokenizer = Tokenizer::new(guard, TokenizerOpts::default());
    let queue = BufferQueue::default();
    for (_, text) in source.chunks(CHUNK) {
        queue.push_back(StrTendril::from(text));
        while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
        if tokenizer.sink.builder.sink.too_deep.get() {
            return Err(TooDeep);
        }
    }
    tokenizer.end();
    let sink = tokenizer.sink.builder.sink;
    match sink.too_deep.get() {
        true => Err(TooDeep),
        false => Ok(sink.tree.into_inner()),
    }
}

impl Node {
    fn new(data: Data) -> Node {
        Node {
            parent: NONE,
            first: NONE,
            last: NONE,
            prev: NONE,
            next: NONE,
            data,
        }
    }
}

impl Tree {
    pub fn document(&self) -> Id {
        Id(0)
    }

    pub fn is_quirks(&self) -> bool {
        self.quirks == QuirksMode::Quirks
    }

    pub fn quirks_mode(&self) -> QuirksMode {
        self.quirks
    }

    pub fn kind(&self, id: Id) -> Kind<'_> {
        match self.nodes[id.0 as usize].data {
            Data::Document => Kind::Document,
            Data::Element { name, attrs } => Kind::Element(
                &self.names[name as usize],
                match attrs {
                    NONE => &[],
                    i => &self.attrs[i as usize],
                },
            ),
            Data::Text(i) => Kind::Text(&self.texts[i as usize]),
            Data::Leaf(i) => Kind::Leaf(&self.leaves[i as usize]),
        }
    }

    /// The contents of a `template` element.
    pub fn template_contents(&self, id: Id) -> Option<Id> {
        self.templates.get(&id.0).map(|&c| Id(c))
    }

    /// The children of `id`, first to last.
    pub fn children(&self, id: Id) -> impl DoubleEndedIterator<Item = Id> + '_ {
        let mut ids = Vec::new();
        let mut at = self.nodes[id.0 as usize].first;
        while at != NONE {
            ids.push(Id(at));
            at = self.nodes[at as usize].next;
        }
        ids.into_iter()
    }

    /// The children of `id`, last to first, without collecting them.
    pub fn children_rev(&self, id: Id) -> impl Iterator<Item = Id> + '_ {
        let mut at = self.nodes[id.0 as usize].last;
        std::iter::from_fn(move || {
            let here = (at != NONE).then_some(Id(at))?;
            at = self.nodes[at as usize].prev;
            Some(here)
        })
    }

    fn push(&mut self, data: Data) -> u32 {
        self.nodes.push(Node::new(data));
        (self.nodes.len() - 1) as u32
    }

    fn is_element(&self, id: u32) -> bool {
        matches!(self.nodes[id as usize].data, Data::Element { .. })
    }

    fn local_name(&self, id: u32) -> Option<&LocalName> {
        match self.nodes[id as usize].data {
            Data::Element { name, .. } => Some(&self.names[name as usize].local),
            _ => None,
        }
    }

    fn detach(&mut self, id: u32) {
        let Node {
            parent, prev, next, ..
        } = self.nodes[id as usize];
        if parent == NONE {
            return;
        }
        self.link(parent, prev, next);
        let node = &mut self.nodes[id as usize];
        (node.parent, node.prev, node.next) = (NONE, NONE, NONE);
    }

    /// Makes `a` and `b` neighbours among `parent`'s children (`NONE`: the start or the end).
    fn link(&mut self, parent: u32, a: u32, b: u32) {
        match a {
            NONE => self.nodes[parent as usize].first = b,
            a => self.nodes[a as usize].next = b,
        }
        match b {
            NONE => self.nodes[parent as usize].last = a,
            b => self.nodes[b as usize].prev = a,
        }
    }

    /// Puts the detached node `id` under `parent`, before `before` (`NONE`: last).
    fn insert(&mut self, parent: u32, id: u32, before: u32) {
        let prev = match before {
            NONE => self.nodes[parent as usize].last,
            b => self.nodes[b as usize].prev,
        };
        self.link(parent, prev, id);
        self.link(parent, id, before);
        let node = &mut self.nodes[id as usize];
        (node.parent, node.prev, node.next) = (parent, prev, before);
    }

    /// Joins `text` to the node `id` when it is a text node (as `RcDom` joins adjacent text).
    fn join_text(&mut self, id: u32, text: &StrTendril) -> bool {
        match self.nodes.get(id as usize).map(|n| n.data) {
            Some(Data::Text(i)) => {
                self.texts[i as usize].push_tendril(text);
                true
            }
            _ => false,
        }
    }
}

/// The tree builder's sink.
struct Sink {
    tree: RefCell<Tree>,
    name_ids: RefCell<HashMap<QualName, u32>>,
    keep: KeepText,
    too_deep: Cell<bool>,
}

/// An element's name, owned (the tree is behind a `RefCell`, so no reference into it can be
/// handed out).
#[derive(Debug)]
pub struct Name {
    ns: Namespace,
    local: LocalName,
}

impl ElemName for Name {
    fn ns(&self) -> &Namespace {
        &self.ns
    }

    fn local_name(&self) -> &LocalName {
        &self.local
    }
}

impl Sink {
    /// The depth guard of [`super::parse`], step for step: counts the elements from `parent`
    /// up, and marks the page too deep past [`MAX_DEPTH`].
    fn placed(&self, tree: &Tree, parent: u32) {
        let mut depth = 1;
        let mut node = Some(parent).filter(|&n| tree.is_element(n));
        while let Some(n) = node {
            depth += 1;
            if depth > MAX_DEPTH {
                self.too_deep.set(true);
                break;
            }
            node = Some(tree.nodes[n as usize].parent).filter(|&p| p != NONE && tree.is_element(p));
        }
    }

    fn keeps_text(&self, tree: &Tree, parent: u32) -> bool {
        self.keep == KeepText::All || tree.local_name(parent).is_some_and(|n| &**n == "style")
    }

    /// Puts `child` under `parent`, before `before` (`NONE`: last), as `RcDom` does: text
    /// joined to a text node just before it, an element counted by the depth guard.
    fn put(&self, tree: &mut Tree, parent: u32, before: u32, child: NodeOrText<Id>) {
        match child {
            NodeOrText::AppendText(text) => {
                let prev = match before {
                    NONE => tree.nodes[parent as usize].last,
                    b => tree.nodes[b as usize].prev,
                };
                if tree.join_text(prev, &text) || !self.keeps_text(tree, parent) {
                    return;
                }
                let id = self.new_text(tree, text);
                tree.insert(parent, id, before);
            }
            NodeOrText::AppendNode(Id(child)) => {
                self.placed(tree, parent);
                tree.detach(child);
                tree.insert(parent, child, before);
            }
        }
    }

    fn new_text(&self, tree: &mut Tree, text: StrTendril) -> u32 {
        tree.texts.push(text);
        let index = (tree.texts.len() - 1) as u32;
        tree.push(Data::Text(index))
    }

    fn new_leaf(&self, leaf: Leaf) -> Id {
        let mut tree = self.tree.borrow_mut();
        tree.leaves.push(leaf);
        let index = (tree.leaves.len() - 1) as u32;
        Id(tree.push(Data::Leaf(index)))
    }
}

impl TreeSink for Sink {
    type Handle = Id;
    type Output = Self;
    type ElemName<'a> = Name;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Id {
        Id(0)
    }

    fn elem_name<'a>(&'a self, target: &'a Id) -> Name {
        let tree = self.tree.borrow();
        match tree.nodes[target.0 as usize].data {
            Data::Element { name, .. } => {
                let name = &tree.names[name as usize];
                Name {
                    ns: name.ns.clone(),
                    local: name.local.clone(),
                }
            }
            // The tree builder asks only for elements' names.
            _ => Name {
                ns: html5ever::ns!(),
                local: LocalName::from(""),
            },
        }
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Id {
        let name = {
            let mut ids = self.name_ids.borrow_mut();
            let mut tree = self.tree.borrow_mut();
            *ids.entry(name).or_insert_with_key(|name| {
                tree.names.push(name.clone());
                (tree.names.len() - 1) as u32
            })
        };
        let mut tree = self.tree.borrow_mut();
        let attrs = match attrs.is_empty() {
            true => NONE,
            false => {
                tree.attrs.push(attrs);
                (tree.attrs.len() - 1) as u32
            }
        };
        let id = tree.push(Data::Element { name, attrs });
        if flags.template {
            let contents = tree.push(Data::Document);
            tree.templates.insert(id, contents);
        }
        if flags.mathml_annotation_xml_integration_point {
            tree.integration_points.insert(id);
        }
        Id(id)
    }

    fn create_comment(&self, text: StrTendril) -> Id {
        self.new_leaf(Leaf::Comment(text))
    }

    fn create_pi(&self, target: StrTendril, contents: StrTendril) -> Id {
        self.new_leaf(Leaf::Pi { target, contents })
    }

    fn append(&self, parent: &Id, child: NodeOrText<Id>) {
        self.put(&mut self.tree.borrow_mut(), parent.0, NONE, child);
    }

    fn append_based_on_parent_node(&self, element: &Id, prev_element: &Id, child: NodeOrText<Id>) {
        let has_parent = self.tree.borrow().nodes[element.0 as usize].parent != NONE;
        match has_parent {
            true => self.append_before_sibling(element, child),
            false => self.append(prev_element, child),
        }
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        let Id(doctype) = self.new_leaf(Leaf::Doctype {
            name,
            public_id,
            system_id,
        });
        self.tree.borrow_mut().insert(0, doctype, NONE);
    }

    fn get_template_contents(&self, target: &Id) -> Id {
        let mut tree = self.tree.borrow_mut();
        if let Some(&contents) = tree.templates.get(&target.0) {
            return Id(contents);
        }
        // Only template elements are asked for; any other gets an empty fragment of its own.
        let contents = tree.push(Data::Document);
        tree.templates.insert(target.0, contents);
        Id(contents)
    }

    fn same_node(&self, x: &Id, y: &Id) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.tree.borrow_mut().quirks = mode;
    }

    fn append_before_sibling(&self, sibling: &Id, child: NodeOrText<Id>) {
        let tree = &mut *self.tree.borrow_mut();
        let parent = tree.nodes[sibling.0 as usize].parent;
        // The tree builder only inserts before a node that has a parent.
        if parent != NONE {
            self.put(tree, parent, sibling.0, child);
        }
    }

    fn add_attrs_if_missing(&self, target: &Id, attrs: Vec<Attribute>) {
        let tree = &mut *self.tree.borrow_mut();
        let Data::Element { name, attrs: index } = tree.nodes[target.0 as usize].data else {
            return;
        };
        if index == NONE {
            tree.attrs.push(Vec::new());
            let index = (tree.attrs.len() - 1) as u32;
            tree.nodes[target.0 as usize].data = Data::Element { name, attrs: index };
            return self.add_attrs_to(tree, index, attrs);
        }
        self.add_attrs_to(tree, index, attrs);
    }

    fn remove_from_parent(&self, target: &Id) {
        self.tree.borrow_mut().detach(target.0);
    }

    fn reparent_children(&self, node: &Id, new_parent: &Id) {
        let tree = &mut *self.tree.borrow_mut();
        let (from, to) = (node.0, new_parent.0);
        let mut at = tree.nodes[from as usize].first;
        while at != NONE {
            let next = tree.nodes[at as usize].next;
            tree.detach(at);
            tree.insert(to, at, NONE);
            at = next;
        }
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Id) -> bool {
        self.tree.borrow().integration_points.contains(&handle.0)
    }

    // `maybe_clone_an_option_into_selectedcontent` keeps the trait's default, which does
    // nothing: `RcDom` 0.40.1's own version never finds the `selectedcontent` (it tests the
    // `select`'s name instead of each descendant's), and the two trees must agree.
}

impl Sink {
    fn add_attrs_to(&self, tree: &mut Tree, index: u32, attrs: Vec<Attribute>) {
        let existing = &mut tree.attrs[index as usize];
        let names: HashSet<QualName> = existing.iter().map(|a| a.name.clone()).collect();
        existing.extend(attrs.into_iter().filter(|a| !names.contains(&a.name)));
    }
}

/// Between the tokenizer and the tree builder: once the page is too deep, the rest is only
/// tokenized (linear), not built (quadratic in the depth).
struct Guard {
    builder: TreeBuilder<Id, Sink>,
}

impl TokenSink for Guard {
    type Handle = Id;

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<Id> {
        match self.builder.sink.too_deep.get() {
            true => TokenSinkResult::Continue,
            false => self.builder.process_token(token, line),
        }
    }

    fn end(&self) {
        if !self.builder.sink.too_deep.get() {
            self.builder.end();
        }
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}
