//! The compact tree every parse of a page builds: the reference scan, the converter's editable
//! page ([`super::Page`], through `html::parse`, which records the source map around this
//! sink), the proof that an edit gives the converter's tree, the minifier's proof. `RcDom`
//! costs about 150 bytes a node (an `Rc` with two `RefCell`s, a child `Vec` each, a weak
//! parent) and as much again in allocator work to build and free; here a node is 32 bytes in
//! one list grown by chunks, linked by index, element names are interned, attributes and text
//! live in side tables, and the text a pass does not read is not kept at all. A 15 MB page of
//! `<b>x</b>` took 670 MB with `RcDom`.
//!
//! The converter edits it in place (`Tree::rename`, `Tree::unwrap`, attributes through
//! `Tree::attrs_mut`, which keeps what an element had before its first change).
//!
//! The tree is the one `RcDom` builds from the same tokens, step for step (text joined to a
//! text node before it, template contents in a fragment of their own; past [`MAX_DEPTH`] the
//! page is too deep, `Sink::placed`); `html::tests` checks that `RcDom`, this tree and the editable page's
//! give the same digest, and the same references, on every page of the corpora.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use html5ever::buffer_queue::BufferQueue;
use html5ever::interface::{ElemName, ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{Attribute, LocalName, Namespace, QualName, TokenizerResult};

use super::by_node::ByNode;
use super::chunked::Chunked;
use super::parse::MAX_DEPTH;
use super::source::Source;

const NONE: u32 = u32::MAX;

/// A node of a [`Tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Id(u32);

impl Id {
    /// The node's number: below the tree's [`Tree::nodes_made`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

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
    /// In chunks (`super::chunked`): a doubling `Vec` held up to twice the nodes of a large
    /// page, and three times while it moved them.
    nodes: Chunked<Node>,
    names: Vec<QualName>,
    attrs: Chunked<Vec<Attribute>>,
    texts: Chunked<StrTendril>,
    leaves: Vec<Leaf>,
    /// Template element → its contents (a document fragment).
    templates: HashMap<u32, u32>,
    /// MathML `annotation-xml` elements that are HTML integration points.
    integration_points: HashSet<u32>,
    quirks: QuirksMode,
    /// The attributes each element had before [`Tree::attrs_mut`] first changed them.
    originals: Originals,
    /// Each name's index in `names`.
    name_ids: HashMap<QualName, u32>,
}

/// An attribute as an element had it before its first change: its local name and value, all
/// that the page's edits compare (24 bytes; an [`Attribute`] is 40).
pub type OriginalAttr = (LocalName, StrTendril);

/// The attributes of the elements [`Tree::attrs_mut`] changed, from before the change, in the
/// order of first change. (In a hash map by node, with copies of the parser's attributes, they
/// took 28 MB of a 15 MB page's conversion.)
#[derive(Debug, Default)]
struct Originals {
    /// By node: the element's place in `list`.
    at: ByNode,
    list: Chunked<(Id, Box<[OriginalAttr]>)>,
}

impl Originals {
    fn get(&self, id: Id) -> Option<&[OriginalAttr]> {
        let (_, attrs) = self.list.get(self.at.get(id.index())? as usize)?;
        Some(attrs)
    }

    /// Keeps `attrs` as `id`'s originals, unless it has them already.
    fn keep(&mut self, id: Id, nodes: usize, attrs: &[Attribute]) {
        if self.at.get(id.index()).is_none() {
            let kept = attrs
                .iter()
                .map(|a| (a.name.local.clone(), a.value.clone()));
            self.at.set(id.index(), self.list.len() as u32, nodes);
            self.list.push((id, kept.collect()));
        }
    }
}

/// A page nests deeper than [`MAX_DEPTH`] elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep;

/// The shadow bytes fed to the tokenizer at a time (cut after a `>`, like every piece).
const CHUNK: usize = 1 << 16;

/// Parses `source` into a [`Tree`], or says it nests too deep.
pub fn parse(source: &Source<'_>, keep: KeepText) -> Result<Tree, TooDeep> {
    let sink = Sink::new(keep);
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

    /// The parent of `id` (`None` for a root or a detached node).
    pub fn parent(&self, id: Id) -> Option<Id> {
        Some(self.nodes[id.0 as usize].parent)
            .filter(|&p| p != NONE)
            .map(Id)
    }

    /// The siblings just before and after `id`.
    pub fn neighbours(&self, id: Id) -> (Option<Id>, Option<Id>) {
        let node = &self.nodes[id.0 as usize];
        let some = |i: u32| (i != NONE).then_some(Id(i));
        (some(node.prev), some(node.next))
    }

    /// The element's name and attributes; `None` for other nodes.
    pub fn element(&self, id: Id) -> Option<(&QualName, &[Attribute])> {
        match self.kind(id) {
            Kind::Element(name, attrs) => Some((name, attrs)),
            _ => None,
        }
    }

    /// The element's lower-case local name; `None` for other nodes.
    pub fn tag(&self, id: Id) -> Option<&str> {
        self.element(id).map(|(name, _)| &*name.local)
    }

    /// The text of a text node.
    pub fn text(&self, id: Id) -> Option<&StrTendril> {
        match self.kind(id) {
            Kind::Text(text) => Some(text),
            _ => None,
        }
    }

    /// How many nodes were ever made (detached ones included): every [`Id`] is below it.
    pub fn nodes_made(&self) -> usize {
        self.nodes.len()
    }

    /// The element's attributes, to change (made on first use for an element without any);
    /// `None` for other nodes. The first call for an element keeps the attributes it had
    /// ([`Tree::original_attrs`]).
    pub(super) fn attrs_mut(&mut self, id: Id) -> Option<&mut Vec<Attribute>> {
        let index = self.attrs_index(id)?;
        let current = &mut self.attrs[index as usize];
        self.originals.keep(id, self.nodes.len(), current);
        Some(current)
    }

    /// The attributes `id` had before they were first changed (through `Tree::attrs_mut`);
    /// `None` if they never were.
    pub fn original_attrs(&self, id: Id) -> Option<&[OriginalAttr]> {
        self.originals.get(id)
    }

    /// The elements whose attributes were changed (or may have been: asked for to change), in
    /// the order of their first change.
    pub fn touched(&self) -> impl Iterator<Item = Id> + '_ {
        self.originals.list.iter().map(|&(id, _)| id)
    }

    /// Gives the element `id` another name, in place (attributes and children stay).
    pub(super) fn rename(&mut self, id: Id, name: QualName) {
        let name = self.intern(name);
        if let Data::Element { attrs, .. } = self.nodes[id.0 as usize].data {
            self.nodes[id.0 as usize].data = Data::Element { name, attrs };
        }
    }

    /// Takes `id` out of the tree, its children put where it was.
    pub(super) fn unwrap(&mut self, id: Id) {
        let parent = self.nodes[id.0 as usize].parent;
        if parent == NONE {
            return;
        }
        let mut at = self.nodes[id.0 as usize].first;
        while at != NONE {
            let next = self.nodes[at as usize].next;
            self.detach(at);
            self.insert(parent, at, id.0);
            at = next;
        }
        self.detach(id.0);
    }

    /// Takes `id` (and everything in it) out of the tree.
    pub(super) fn remove(&mut self, id: Id) {
        self.detach(id.0);
    }

    /// A new element, not yet in the tree.
    pub(super) fn new_element(&mut self, name: QualName, attrs: Vec<Attribute>) -> Id {
        let name = self.intern(name);
        let attrs = match attrs.is_empty() {
            true => NONE,
            false => {
                // The tokenizer's list has room for more (4 for 1): it is kept for the page.
                let mut attrs = attrs;
                attrs.shrink_to_fit();
                self.attrs.push(attrs);
                (self.attrs.len() - 1) as u32
            }
        };
        Id(self.push(Data::Element { name, attrs }))
    }

    /// A new text node, not yet in the tree.
    pub(super) fn new_text(&mut self, text: StrTendril) -> Id {
        self.texts.push(text);
        let index = (self.texts.len() - 1) as u32;
        Id(self.push(Data::Text(index)))
    }

    /// Puts the detached node `child` last under `parent`.
    pub(super) fn append(&mut self, parent: Id, child: Id) {
        self.detach(child.0);
        self.insert(parent.0, child.0, NONE);
    }

    fn intern(&mut self, name: QualName) -> u32 {
        let names = &mut self.names;
        *self.name_ids.entry(name).or_insert_with_key(|name| {
            names.push(name.clone());
            (names.len() - 1) as u32
        })
    }

    /// The index of the element's attribute list, made empty for an element without one;
    /// `None` for other nodes.
    fn attrs_index(&mut self, id: Id) -> Option<u32> {
        let Data::Element { name, attrs } = self.nodes[id.0 as usize].data else {
            return None;
        };
        if attrs != NONE {
            return Some(attrs);
        }
        self.attrs.push(Vec::new());
        let index = (self.attrs.len() - 1) as u32;
        self.nodes[id.0 as usize].data = Data::Element { name, attrs: index };
        Some(index)
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

/// The tree builder's sink (also the inner sink of [`super::parse`](mod@super::parse)'s, which records the
/// source map around it).
pub(super) struct Sink {
    pub(super) tree: RefCell<Tree>,
    keep: KeepText,
    pub(super) too_deep: Cell<bool>,
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
    pub(super) fn new(keep: KeepText) -> Sink {
        Sink {
            tree: RefCell::new(Tree {
                nodes: Chunked::one(Node::new(Data::Document)),
                names: Vec::new(),
                attrs: Chunked::default(),
                texts: Chunked::default(),
                leaves: Vec::new(),
                templates: HashMap::new(),
                integration_points: HashSet::new(),
                quirks: QuirksMode::NoQuirks,
                originals: Originals::default(),
                name_ids: HashMap::new(),
            }),
            keep,
            too_deep: Cell::new(false),
        }
    }

    /// The depth guard of every parse: counts the elements from `parent` up, and marks the
    /// page too deep past [`MAX_DEPTH`].
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
                let Id(id) = tree.new_text(text);
                tree.insert(parent, id, before);
            }
            NodeOrText::AppendNode(Id(child)) => {
                self.placed(tree, parent);
                tree.detach(child);
                tree.insert(parent, child, before);
            }
        }
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
        let mut tree = self.tree.borrow_mut();
        let id = tree.new_element(name, attrs);
        if flags.template {
            let contents = tree.push(Data::Document);
            tree.templates.insert(id.0, contents);
        }
        if flags.mathml_annotation_xml_integration_point {
            tree.integration_points.insert(id.0);
        }
        id
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
        if let Some(index) = tree.attrs_index(*target) {
            self.add_attrs_to(tree, index, attrs);
        }
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
