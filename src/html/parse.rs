//! Drives html5ever over a [`Source`] one piece at a time, so that two things become possible:
//!
//! - **a depth limit.** html5ever's tree builder walks its stack of open elements for most
//!   tags, so a page of 1,000,000 nested `<div>` costs 10¹² steps. The parse stops as soon as
//!   an element would sit deeper than [`MAX_DEPTH`] (Chromium's own parser stops nesting at
//!   512, `kMaximumHTMLParserDOMTreeDepth`, so past that depth html5ever's tree is no longer
//!   the browser's anyway) and says so; callers fall back or leave the page alone.
//! - **a source map.** Every piece ends just after a `>`, and a tag token is emitted when its
//!   `>` is read, so each tag's end offset is known; a tap between the tokenizer and the tree
//!   builder numbers the tokens, and a sink around the compact tree's ([`super::arena`])
//!   records which token each element was created for. Elements the parser makes up
//!   (implied `<tbody>`, the copies of a `<font>` that the adoption agency and the
//!   reconstruction of formatting elements make) have no token of their own.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use html5ever::buffer_queue::BufferQueue;
use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{Attribute, LocalName, QualName, TokenizerResult};

use super::arena::{self, Id, KeepText, Tree};
use super::by_node::ByNode;
use super::chunked::Chunked;
use super::source::Source;

/// Deepest element the parse builds (Chromium's parser limit, see the module documentation).
pub const MAX_DEPTH: u32 = 512;

/// What kind of token a [`Tok`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokKind {
    Start,
    End,
    /// A comment, doctype or other markup that ends with `>`.
    Other,
    /// Text; [`Tok::end`] is then the end of the markup token before it.
    Chars,
    Eof,
}

/// One token the tokenizer emitted, with where it ends in the shadow.
#[derive(Debug, Clone)]
pub struct Tok {
    pub kind: TokKind,
    /// Tag name (lower case) for start and end tags.
    pub name: Option<LocalName>,
    /// Just after the token's `>` (see [`TokKind::Chars`]); in 32 bits (a token is then 24
    /// bytes, not 32), so a page with a source map is under 4 GiB (`Page::parse`).
    pub end: u32,
    /// The element the tree builder made for a start tag.
    pub own: Option<Id>,
}

/// What the tap and the sink recorded.
#[derive(Default)]
pub struct Log {
    pub tokens: Chunked<Tok>,
    /// Every element the tree builder created, with the token being processed at the time.
    pub created: Chunked<(Id, Option<usize>)>,
    /// Elements that took attributes from a second start tag (`<body>` twice). An implied
    /// element without attributes that takes them from one start tag (`<body>` after text)
    /// is instead that tag's own element.
    pub merged: Vec<Id>,
    /// The start-tag token of each element that has one of its own, by node (the reverse of
    /// [`Tok::own`]); taken by [`Owners::take`].
    owned: ByNode,
    /// The `<head>` element and the token during which something was first put outside it
    /// after it was made (where the head ends).
    pub head: Option<Id>,
    pub head_closed_by: Option<usize>,
}

/// The start-tag token of each element that has one, by node.
pub struct Owners(ByNode);

impl Owners {
    /// What the parse recorded, taken out of its log.
    pub fn take(log: &mut Log) -> Owners {
        Owners(std::mem::take(&mut log.owned))
    }

    /// The start-tag token of `node`, if it has one.
    pub fn get(&self, node: Id) -> Option<usize> {
        self.0.get(node.index()).map(|token| token as usize)
    }

    pub fn contains(&self, node: Id) -> bool {
        self.get(node).is_some()
    }
}

/// A parsed page: the tree, whether it was cut off, and the source map.
pub struct Parsed {
    pub tree: Tree,
    /// The page nests deeper than [`MAX_DEPTH`]; `tree` holds only its beginning.
    pub too_deep: bool,
    pub log: Log,
}

/// Parses `source` with its source map ([`Parsed::log`]). A parse that only reads the page
/// builds the compact tree alone ([`arena::parse`]).
pub fn parse(source: &Source<'_>) -> Parsed {
    let sink = MapSink {
        inner: arena::Sink::new(KeepText::All),
        token: Cell::new(None),
        log: RefCell::new(Log::default()),
    };
    let tap = Tap {
        builder: TreeBuilder::new(sink, TreeBuilderOpts::default()),
        piece_end: Cell::new(0),
        markup_end: Cell::new(0),
    };
    let tokenizer = Tokenizer::new(tap, TokenizerOpts::default());
    let queue = BufferQueue::default();
    for (range, text) in source.pieces() {
        tokenizer.sink.piece_end.set(range.end);
        queue.push_back(StrTendril::from(text));
        while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
        if tokenizer.sink.builder.sink.too_deep() {
            break;
        }
    }
    let too_deep = tokenizer.sink.builder.sink.too_deep();
    if !too_deep {
        tokenizer.sink.piece_end.set(source.shadow().len());
        tokenizer.end();
    }
    let sink = tokenizer.sink.builder.sink;
    Parsed {
        tree: sink.inner.tree.into_inner(),
        too_deep,
        log: sink.log.into_inner(),
    }
}

/// Sits between the tokenizer and the tree builder and numbers the tokens.
struct Tap {
    builder: TreeBuilder<Id, MapSink>,
    /// Shadow offset just after the piece being fed.
    piece_end: Cell<usize>,
    /// End of the last markup token.
    markup_end: Cell<usize>,
}

impl TokenSink for Tap {
    type Handle = Id;

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<Id> {
        let sink = &self.builder.sink;
        if sink.too_deep() {
            return TokenSinkResult::Continue;
        }
        let (kind, name) = match &token {
            Token::TagToken(Tag { kind, name, .. }) => (
                match kind {
                    TagKind::StartTag => TokKind::Start,
                    TagKind::EndTag => TokKind::End,
                },
                Some(name.clone()),
            ),
            Token::CommentToken(_) | Token::DoctypeToken(_) => (TokKind::Other, None),
            Token::CharacterTokens(_) | Token::NullCharacterToken => (TokKind::Chars, None),
            Token::EOFToken => (TokKind::Eof, None),
            Token::ParseError(_) => return self.builder.process_token(token, line),
        };
        let end = match kind {
            TokKind::Chars => self.markup_end.get(),
            _ => self.piece_end.get(),
        };
        if kind != TokKind::Chars {
            self.markup_end.set(end);
        }
        let index = {
            let mut log = sink.log.borrow_mut();
            log.tokens.push(Tok {
                kind,
                name: name.clone(),
                end: end as u32,
                own: None,
            });
            log.tokens.len() - 1
        };
        sink.token.set(Some(index));
        let created_before = sink.log.borrow().created.len();
        let result = self.builder.process_token(token, line);
        if kind == TokKind::Start {
            let mut log = sink.log.borrow_mut();
            let name = name.unwrap_or_default();
            let tree = sink.inner.tree.borrow();
            let own = log
                .created
                .from(created_before)
                .rev()
                .map(|&(node, _)| node)
                .find(|&node| is_made_for(&tree, node, &name));
            if let Some(own) = own {
                log.owned.set(own.index(), index as u32, tree.nodes_made());
                log.tokens[index].own = Some(own);
            }
        }
        result
    }

    fn end(&self) {
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// Whether `node` is the element a start tag named `tag` makes (`<image>` makes `img`;
/// SVG names get their camel case).
fn is_made_for(tree: &Tree, node: Id, tag: &LocalName) -> bool {
    tree.tag(node)
        .is_some_and(|name| name.eq_ignore_ascii_case(tag) || (name == "img" && &**tag == "image"))
}

/// The compact tree's sink plus the records of the source map.
struct MapSink {
    inner: arena::Sink,
    /// The token being processed.
    token: Cell<Option<usize>>,
    log: RefCell<Log>,
}

impl MapSink {
    fn too_deep(&self) -> bool {
        self.inner.too_deep.get()
    }

    /// Notes where the head ends when `child` is put under `parent` (the head itself aside).
    fn placed(&self, parent: Id, child: &NodeOrText<Id>) {
        let is_head = match child {
            NodeOrText::AppendNode(child) => self.log.borrow().head == Some(*child),
            NodeOrText::AppendText(_) => false,
        };
        if !is_head {
            self.head_ends_unless_in(parent);
        }
    }

    /// Notes where the head ends: the first token after it was made that puts a node outside
    /// it (the head itself aside).
    fn head_ends_unless_in(&self, parent: Id) {
        let mut log = self.log.borrow_mut();
        let (Some(head), None) = (log.head, log.head_closed_by) else {
            return;
        };
        let tree = self.inner.tree.borrow();
        let mut node = Some(parent);
        while let Some(n) = node {
            if n == head {
                return;
            }
            node = tree.parent(n);
        }
        log.head_closed_by = self.token.get();
    }
}

impl TreeSink for MapSink {
    type Handle = Id;
    type Output = Self;
    type ElemName<'a> = arena::Name;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Id {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a Id) -> arena::Name {
        self.inner.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Id {
        let is_head = name.local == *"head" && name.ns == html5ever::ns!(html);
        let node = self.inner.create_element(name, attrs, flags);
        let mut log = self.log.borrow_mut();
        if is_head && log.head.is_none() {
            log.head = Some(node);
        }
        log.created.push((node, self.token.get()));
        node
    }

    fn create_comment(&self, text: StrTendril) -> Id {
        self.inner.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Id {
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &Id, child: NodeOrText<Id>) {
        self.placed(*parent, &child);
        self.inner.append(parent, child);
    }

    fn append_based_on_parent_node(&self, element: &Id, prev_element: &Id, child: NodeOrText<Id>) {
        let parent = self.inner.tree.borrow().parent(*element);
        match parent {
            Some(parent) => {
                self.placed(parent, &child);
                self.inner.append_before_sibling(element, child);
            }
            None => self.append(prev_element, child),
        }
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.inner
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn get_template_contents(&self, target: &Id) -> Id {
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &Id, y: &Id) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &Id, child: NodeOrText<Id>) {
        let parent = self.inner.tree.borrow().parent(*sibling);
        if let Some(parent) = parent {
            self.placed(parent, &child);
        }
        self.inner.append_before_sibling(sibling, child);
    }

    fn add_attrs_if_missing(&self, target: &Id, attrs: Vec<Attribute>) {
        if !attrs.is_empty() {
            let log = &mut *self.log.borrow_mut();
            let bare = self
                .inner
                .tree
                .borrow()
                .element(*target)
                .is_some_and(|(_, attrs)| attrs.is_empty());
            match self.token.get() {
                Some(token) if bare && log.owned.get(target.index()).is_none() => {
                    let nodes = self.inner.tree.borrow().nodes_made();
                    log.owned.set(target.index(), token as u32, nodes);
                    log.tokens[token].own = Some(*target);
                }
                _ => log.merged.push(*target),
            }
        }
        self.inner.add_attrs_if_missing(target, attrs);
    }

    fn remove_from_parent(&self, target: &Id) {
        self.inner.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &Id, new_parent: &Id) {
        self.inner.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Id) -> bool {
        self.inner
            .is_mathml_annotation_xml_integration_point(handle)
    }
}
