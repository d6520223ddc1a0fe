//! A page that can be edited as a DOM and written back as edits of its own bytes.
//!
//! [`Page::parse`] builds the tree with a source map (`html::parse`). The caller edits the
//! tree: attributes directly, structure through [`Page::rename`], [`Page::unwrap`],
//! [`Page::remove`] and [`Page::append`], which are logged. [`Page::edits`] then says what
//! changed as byte edits of the original page: a changed start tag keeps every attribute it did
//! not change byte for byte, a renamed element's end tag gets the new name, new elements for
//! the head go where the head ends. Nothing else of the page is touched, so its encoding, byte
//! order mark, entities, quoting, implied tags and text stay as written.
//!
//! [`Page::proves`] re-parses the edited bytes and compares the tree with the edited DOM: an
//! edit is used only when the browser would build exactly the tree the converter built.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;
use html5ever::{ns, Attribute, LocalName, QualName};

use super::arena::{Id, OriginalAttr, Tree};
use super::compare::digest_tree;
use super::edit::{NewElement, Node};
use super::edits::{Edits, Piece, PieceRef};
use super::lex::{self, LexedTag};
use super::nesting::{copied_names, misnested, pair_tags, FORMATTING, RENAMED};
use super::parse::{self, Log, Owners, TokKind};
use super::source::{self, Source};
use super::write;
use crate::hash::{Map as HashMap, Set as HashSet};

/// Why a page has no [`Page`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unparsed {
    /// Nested deeper than [`parse::MAX_DEPTH`].
    TooDeep,
    /// A stateful encoding (ISO-2022-JP…), whose bytes cannot be edited in place.
    Encoding(&'static Encoding),
    /// 4 GiB or more: past what an edit's offsets hold.
    TooLarge,
}

impl Unparsed {
    /// The reason code a caller reports.
    pub fn reason(self) -> &'static str {
        match self {
            Unparsed::TooDeep => "too-deep",
            Unparsed::Encoding(_) => "encoding-not-editable",
            Unparsed::TooLarge => "too-large-to-edit",
        }
    }
}

/// A structural change, in the order the caller made them.
enum Op {
    /// Renamed in place; `old` is the name it had.
    Rename {
        node: Id,
        old: LocalName,
    },
    Unwrap(Id),
    Remove(Id),
    /// Rare (one per page), so boxed: the log holds a rename per converted `<font>`.
    Append {
        parent: Id,
        child: Box<NewElement>,
    },
}

/// A parsed page with its source map (see the module documentation).
pub struct Page<'a> {
    source: Source<'a>,
    /// Shared with the [`Node`] handles the caller holds.
    tree: Rc<RefCell<Tree>>,
    log: Log,
    /// Start-tag token of each element made for one.
    own: Owners,
    /// Start-tag token → the end-tag token that closes it, where markup nests properly.
    pairs: HashMap<usize, usize>,
    /// Formatting elements the parser copies or closes in other places than their end tags.
    misnested: HashSet<Id>,
    ops: RefCell<Vec<Op>>,
}

/// An element's attributes as (name, value).
fn pairs_of(attrs: &[Attribute]) -> Vec<(String, String)> {
    attrs
        .iter()
        .map(|a| (a.name.local.to_string(), a.value.to_string()))
        .collect()
}

/// [`pairs_of`] for the attributes an element had before its first change.
fn original_pairs(attrs: &[OriginalAttr]) -> Vec<(String, String)> {
    attrs
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

impl<'a> Page<'a> {
    /// Parses a page's bytes in `encoding` (as `site::charset::detect` decided it).
    pub fn parse(bytes: &'a [u8], encoding: &'static Encoding) -> Result<Page<'a>, Unparsed> {
        if u32::try_from(bytes.len()).is_err() {
            return Err(Unparsed::TooLarge);
        }
        let source = Source::new(bytes, encoding).map_err(|e| Unparsed::Encoding(e.0))?;
        if u32::try_from(source.shadow().len()).is_err() {
            return Err(Unparsed::TooLarge);
        }
        let parsed = parse::parse(&source);
        if parsed.too_deep {
            return Err(Unparsed::TooDeep);
        }
        let (mut log, tree) = (parsed.log, parsed.tree);
        let own = Owners::take(&mut log);
        let copied = copied_names(&log, &own, &tree);
        let pairs = pair_tags(&log, &own, &copied, &tree);
        let misnested = misnested(&log, &own, &tree, &pairs, copied);
        Ok(Page {
            source,
            tree: Rc::new(RefCell::new(tree)),
            log,
            own,
            pairs,
            misnested,
            ops: RefCell::new(Vec::new()),
        })
    }

    /// Tokens and elements in the source map, each as (length, capacity).
    #[cfg(test)]
    pub(super) fn log_sizes(&self) -> ((usize, usize), (usize, usize)) {
        let (t, c) = (&self.log.tokens, &self.log.created);
        ((t.len(), t.capacity()), (c.len(), c.capacity()))
    }

    pub fn document(&self) -> Node {
        let id = self.tree.borrow().document();
        Node::new(Rc::clone(&self.tree), id)
    }

    /// Whether `node`'s attributes differ from those it was parsed with.
    fn attrs_changed(tree: &Tree, node: Id) -> bool {
        let Some(then) = tree.original_attrs(node) else {
            return false;
        };
        let now = tree.element(node).map_or(&[][..], |(_, attrs)| attrs);
        now.len() != then.len()
            || now
                .iter()
                .zip(then)
                .any(|(a, (name, value))| a.name.local != *name || a.value != *value)
    }

    /// Whether the page renders in (full) quirks mode.
    pub fn is_quirks(&self) -> bool {
        self.tree.borrow().is_quirks()
    }

    /// Whether this is a formatting element (`<font>`, `<u>`, `<nobr>`…) in misnested markup:
    /// the parser copies it into the blocks that follow, or closes it elsewhere than at its
    /// own end tag, or it is such a copy. Renamed, it would change how the page parses.
    pub fn is_misnested(&self, el: &Node) -> bool {
        self.misnested.contains(&el.id)
    }

    /// Renames `el` to `tag` (an HTML element), in place: attributes and children stay.
    /// Returns it.
    pub fn rename(&self, el: &Node, tag: &str) -> Node {
        let mut tree = self.tree.borrow_mut();
        if let Some(old) = tree.element(el.id).map(|(name, _)| name.local.clone()) {
            tree.rename(el.id, QualName::new(None, ns!(html), LocalName::from(tag)));
            self.ops.borrow_mut().push(Op::Rename { node: el.id, old });
        }
        el.clone()
    }

    /// Removes `el`, putting its children where it was.
    pub fn unwrap(&self, el: &Node) {
        self.tree.borrow_mut().unwrap(el.id);
        self.ops.borrow_mut().push(Op::Unwrap(el.id));
    }

    /// Removes `el` and everything in it.
    pub fn remove(&self, el: &Node) {
        self.tree.borrow_mut().remove(el.id);
        self.ops.borrow_mut().push(Op::Remove(el.id));
    }

    /// Appends a new element (with text only) to `parent`, which must be the head.
    pub fn append(&self, parent: &Node, child: NewElement) {
        let mut tree = self.tree.borrow_mut();
        let attrs = child
            .attrs
            .iter()
            .map(|(n, v)| Attribute {
                name: QualName::new(None, ns!(), LocalName::from(n.as_str())),
                value: v.as_str().into(),
            })
            .collect();
        let name = QualName::new(None, ns!(html), LocalName::from(child.tag.as_str()));
        let el = tree.new_element(name, attrs);
        if !child.text.is_empty() {
            let text = tree.new_text(child.text.as_str().into());
            tree.append(el, text);
        }
        tree.append(parent.id, el);
        self.ops.borrow_mut().push(Op::Append {
            parent: parent.id,
            child: Box::new(child),
        });
    }

    /// The edits of the page's bytes that give the edited tree, or the reason there are none:
    /// `unmappable-edit` when a change touches an element without a tag of its own in the
    /// source (an implied element, a parser's copy).
    pub fn edits(&self) -> Result<Edits, &'static str> {
        const UNMAPPABLE: &str = "unmappable-edit";
        const TOO_LARGE: &str = "too-large-to-edit";
        let tree = self.tree.borrow();
        // Renamed elements with the name they had; removed ones with whether unwrapped.
        let mut renamed: HashMap<Id, LocalName> = HashMap::default();
        let mut gone: HashMap<Id, bool> = HashMap::default();
        let mut appended: Vec<&NewElement> = Vec::new();
        let ops = self.ops.borrow();
        for op in ops.iter() {
            let (node, tag, mapped) = match op {
                Op::Rename { node, old } => {
                    (*node, &**old, renamed.insert(*node, old.clone()).is_none())
                }
                Op::Unwrap(el) => (
                    *el,
                    tree.tag(*el).unwrap_or(""),
                    gone.insert(*el, true).is_none(),
                ),
                Op::Remove(el) => (
                    *el,
                    tree.tag(*el).unwrap_or(""),
                    gone.insert(*el, false).is_none(),
                ),
                Op::Append { parent, child } => {
                    if self.log.head != Some(*parent) {
                        return Err(UNMAPPABLE);
                    }
                    appended.push(child);
                    continue;
                }
            };
            // Only elements whose end tag is looked for (`pair_tags`) are renamed or unwrapped;
            // only void elements (one tag, no content) are removed.
            let supported = match op {
                Op::Remove(_) => write::is_void(tag),
                _ => write::is_void(tag) || FORMATTING.contains(&tag) || RENAMED.contains(&tag),
            };
            if !mapped || !supported || !self.own.contains(node) {
                return Err(UNMAPPABLE);
            }
        }
        let merged: HashSet<Id> = self.log.merged.iter().copied().collect();
        for node in tree.touched() {
            let changed = Self::attrs_changed(&tree, node);
            let copy = self.misnested.contains(&node);
            if changed && (!self.own.contains(node) && !copy || merged.contains(&node)) {
                return Err(UNMAPPABLE);
            }
        }
        let edited = |el: Id| {
            gone.contains_key(&el) || renamed.contains_key(&el) || Self::attrs_changed(&tree, el)
        };
        // Counted first, so that the list is made at its size: it is kept until the site's
        // sheet is built, and a doubling list held up to twice its edits (three times while
        // it moved them).
        let count: usize = (self.log.tokens.iter())
            .filter_map(|t| t.own.filter(|&el| edited(el)))
            .map(|el| 1 + usize::from(gone.contains_key(&el) || renamed.contains_key(&el)))
            .sum();
        let mut edits = Edits::with_capacity(count + usize::from(!appended.is_empty()));
        let shadow = self.source.shadow();
        let ends = &self.pairs;
        for (index, token) in self.log.tokens.iter().enumerate() {
            let Some(el) = token.own.filter(|&el| edited(el)) else {
                continue;
            };
            let removed = gone.get(&el).copied();
            let old_name = renamed.get(&el);
            let final_attrs = tree.element(el).map_or_else(Vec::new, |(_, a)| pairs_of(a));
            // Unchanged attributes: as parsed.
            let parsed = tree.original_attrs(el).map(original_pairs);
            let parsed = parsed.as_deref().unwrap_or(&final_attrs);
            // Renamed: the name it has now.
            let new_name = old_name.and_then(|_| tree.tag(el));
            let tag = self.start_tag(index).ok_or(UNMAPPABLE)?;
            let pieces = match removed {
                Some(_) => Vec::new(),
                None => {
                    let old_name = match old_name {
                        Some(name) => name,
                        None => tree.tag(el).unwrap_or(""),
                    };
                    let mut pieces = self.start_tag_pieces(&tag, new_name, parsed, &final_attrs);
                    if let Some(new) = new_name {
                        if write::is_void(old_name) && !write::is_void(new) {
                            pieces.push(Piece::Text(format!("</{new}>")));
                        }
                    }
                    pieces
                }
            };
            edits
                .push(self.source.bytes_of(tag.span.clone()), pieces)
                .map_err(|_| TOO_LARGE)?;
            let Some(&end) = ends.get(&index) else {
                continue;
            };
            let Some(end_tag) = self.end_tag(end) else {
                continue;
            };
            let pieces = match (removed, new_name) {
                (Some(_), _) => Vec::new(),
                (None, Some(new)) => vec![
                    self.keep(end_tag.span.start..end_tag.name_span.start),
                    Piece::Text(new.into()),
                    self.keep(end_tag.name_span.end..end_tag.span.end),
                ],
                (None, None) => continue,
            };
            edits
                .push(self.source.bytes_of(end_tag.span.clone()), pieces)
                .map_err(|_| TOO_LARGE)?;
        }
        if !appended.is_empty() {
            let at = self.head_end().ok_or(UNMAPPABLE)?;
            let mut text = String::new();
            for child in appended {
                write::element(child, &mut text);
            }
            edits
                .push(self.source.bytes_of(at..at), vec![Piece::Text(text)])
                .map_err(|_| TOO_LARGE)?;
        }
        // No two edits have the same span: each tag is edited once, and the one insertion is
        // empty where no tag is.
        edits.sort();
        if edits.overlap() || shadow.is_empty() && !edits.is_empty() {
            return Err(UNMAPPABLE);
        }
        Ok(edits)
    }

    /// The digest of the tree as it is now.
    #[cfg(test)]
    pub(super) fn digest(&self) -> super::compare::Digest {
        digest_tree(&self.tree.borrow())
    }

    /// Whether `edits` turn the page into exactly the edited tree (re-parsed in the page's
    /// encoding, which the edit must not change either). The page is consumed: its source map
    /// is freed first, then its tree is reduced to a digest and freed, before the edited bytes
    /// are parsed. Nobody else may hold its nodes by then (they would keep the tree alive).
    pub fn proves(self, edits: &Edits) -> bool {
        let Page {
            source,
            tree,
            log,
            own,
            pairs,
            misnested,
            ops,
        } = self;
        drop((log, own, pairs, misnested, ops));
        let (expected, quirks) = {
            let tree = tree.borrow();
            (digest_tree(&tree), tree.quirks_mode())
        };
        drop(tree);
        let (bytes, encoding) = (source.bytes(), source.encoding());
        let edited = render(bytes, encoding, edits, &|text, out| out.push_str(text));
        // The browser must read the edited page as it read the page (an edit could push a
        // `<meta>` past where Chromium's scan stops).
        let read = |bytes: &[u8]| crate::site::charset::detect(bytes).encoding;
        if read(&edited) != read(bytes) {
            return false;
        }
        let Ok(source) = Source::new(&edited, encoding) else {
            return false;
        };
        super::arena::parse(&source, super::arena::KeepText::All).is_ok_and(|reparsed| {
            reparsed.quirks_mode() == quirks && digest_tree(&reparsed) == expected
        })
    }

    fn keep(&self, shadow: Range<usize>) -> Piece {
        let Range { start, end } = self.source.bytes_of(shadow);
        // The page is under 4 GiB (`Page::parse`).
        Piece::Keep(start as u32..end as u32)
    }

    /// Where the token before `index` ended.
    fn before(&self, index: usize) -> usize {
        index
            .checked_sub(1)
            .map_or(0, |i| self.log.tokens[i].end as usize)
    }

    /// The start tag of token `index` as written: the first `<` + letter after the token
    /// before it (the tokenizer was in its data state there), checked to end where the
    /// tokenizer ended it.
    fn start_tag(&self, index: usize) -> Option<LexedTag> {
        let shadow = self.source.shadow();
        let end = self.log.tokens[index].end as usize;
        let mut at = self.before(index);
        loop {
            let lt = lex::memchr(b'<', shadow, at).filter(|&lt| lt < end)?;
            if shadow.get(lt + 1).is_some_and(u8::is_ascii_alphabetic) {
                return lex::tag_at(shadow, lt).filter(|t| t.closed && t.span.end == end);
            }
            at = lt + 1;
        }
    }

    /// The end tag of token `index`: the first `</` + letter after the token before it that
    /// lexes to where the tokenizer ended it (raw text may hold other `</x` first).
    fn end_tag(&self, index: usize) -> Option<LexedTag> {
        let shadow = self.source.shadow();
        let end = self.log.tokens[index].end as usize;
        let mut at = self.before(index);
        while let Some(lt) = lex::find_seq(shadow, b"</", at).filter(|&lt| lt < end) {
            if let Some(tag) = lex::tag_at(shadow, lt).filter(|t| t.closed && t.span.end == end) {
                return Some(tag);
            }
            at = lt + 2;
        }
        None
    }

    /// Where an element appended to the head goes: before an explicit `</head>`, else before
    /// the token that ended the head (for text, after its leading whitespace, which the head
    /// keeps), else at the end of the page.
    fn head_end(&self) -> Option<usize> {
        let head = self.log.head?;
        let made = self
            .log
            .created
            .iter()
            .find(|(n, _)| *n == head)
            .and_then(|(_, t)| *t)?;
        let closed_by = self.log.head_closed_by;
        let last = closed_by.unwrap_or(self.log.tokens.len());
        let explicit = (made..last).find(|&i| {
            let t = &self.log.tokens[i];
            t.kind == TokKind::End && t.name.as_deref() == Some("head")
        });
        if let Some(i) = explicit {
            return Some(self.end_tag(i)?.span.start);
        }
        let shadow = self.source.shadow();
        let Some(i) = closed_by else {
            return Some(shadow.len());
        };
        let token = &self.log.tokens[i];
        let from = self.before(i);
        match token.kind {
            TokKind::Start => Some(self.start_tag(i)?.span.start),
            TokKind::End => Some(self.end_tag(i)?.span.start),
            TokKind::Chars => Some(
                from + shadow[from..]
                    .iter()
                    .take_while(|&&b| lex::is_space(b))
                    .count(),
            ),
            TokKind::Eof => Some(shadow.len()),
            TokKind::Other => lex::memchr(b'<', shadow, from),
        }
    }

    /// A start tag with its attributes changed: kept attributes stay as written, changed ones
    /// are written anew in place, removed ones go with the space before them, new ones come
    /// last; the name is replaced when the element was renamed.
    fn start_tag_pieces(
        &self,
        tag: &LexedTag,
        new_name: Option<&str>,
        before: &[(String, String)],
        after: &[(String, String)],
    ) -> Vec<Piece> {
        let find = |list: &'_ [(String, String)], name: &str| {
            list.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
        };
        let mut pieces = vec![self.keep(tag.span.start..tag.name_span.start)];
        pieces.push(match new_name {
            Some(name) => Piece::Text(name.into()),
            None => self.keep(tag.name_span.clone()),
        });
        let mut at = tag.name_span.end;
        let mut seen: HashSet<&str> = HashSet::default();
        let separator = |at: usize, start: usize| match at == start {
            true => Piece::Text(" ".into()),
            false => self.keep(at..start),
        };
        for attr in &tag.attrs {
            let first = seen.insert(&attr.name);
            let now = find(after, &attr.name);
            match now {
                Some(value) if first && find(before, &attr.name).as_ref() != Some(&value) => {
                    pieces.push(separator(at, attr.span.start));
                    let mut text = String::new();
                    write::attribute(&attr.name, &value, &mut text);
                    pieces.push(Piece::Text(text));
                }
                Some(_) => {
                    pieces.push(separator(at, attr.span.start));
                    pieces.push(self.keep(attr.span.clone()));
                }
                None => {}
            }
            at = attr.span.end;
        }
        for (name, value) in after {
            if !seen.contains(name.as_str()) {
                let mut text = " ".to_string();
                write::attribute(name, value, &mut text);
                pieces.push(Piece::Text(text));
            }
        }
        pieces.push(self.keep(at..tag.span.end));
        pieces
    }
}

/// Writes the page with `edits` applied. Text pieces pass through `fill`, which writes what
/// is to stand for them (the text with its class-name slots filled), and are written in the
/// page's encoding.
pub fn render(
    bytes: &[u8],
    encoding: &'static Encoding,
    edits: &Edits,
    fill: &dyn Fn(&str, &mut String),
) -> Vec<u8> {
    // As long as the page and the new text, unless `fill` lengthens the text.
    let mut out = Vec::with_capacity(bytes.len() + edits.text_len());
    // One buffer for every text filled in (a string each was an allocation per changed tag).
    let mut filled = String::new();
    let mut at = 0;
    for edit in edits.iter() {
        let span = edit.span();
        if span.start < at || span.end > bytes.len() {
            continue;
        }
        out.extend_from_slice(&bytes[at..span.start]);
        for piece in edit.pieces() {
            match piece {
                PieceRef::Keep(range) => out.extend_from_slice(&bytes[range]),
                PieceRef::Text(text) => {
                    filled.clear();
                    fill(text, &mut filled);
                    source::encode_ascii(encoding, &filled, &mut out);
                }
            }
        }
        at = span.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}
