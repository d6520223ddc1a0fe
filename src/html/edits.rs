//! A page's byte edits, held flat: one list of spans, one of pieces (in chunks, as the tree
//! is) and the new text in blocks. A page's edits are kept until the site's
//! sheet is built, for every candidate conversion; as a list of edits each with its boxed
//! pieces and a boxed string per new text they took 33 MB of a 15 MB page's conversion, a
//! third of it allocator overhead.

use std::ops::Range;

use super::chunked::Chunked;

/// Part of a replacement, as [`super::Page::edits`] makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// These bytes of the original page, as they are (a page of 4 GiB or more is not edited:
    /// [`super::Unparsed::TooLarge`]).
    Keep(Range<u32>),
    /// New markup. ASCII, except characters the caller fills in before writing (class-name
    /// slots); any other non-ASCII character is written as a numeric character reference.
    Text(String),
}

/// Part of a replacement, as [`Edits`] gives it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PieceRef<'a> {
    Keep(Range<usize>),
    Text(&'a str),
}

/// One edit: replace `span` of the page's bytes with its pieces.
#[derive(Debug, Clone, Copy)]
pub struct Edit<'a> {
    span: Span,
    edits: &'a Edits,
}

impl<'a> Edit<'a> {
    /// The bytes of the page this edit replaces.
    pub fn span(&self) -> Range<usize> {
        self.span.start as usize..self.span.end as usize
    }

    pub fn pieces(&self) -> impl Iterator<Item = PieceRef<'a>> + 'a {
        let edits = self.edits;
        let stored = edits.pieces.from(self.span.first as usize);
        stored
            .take(self.span.count as usize)
            .map(move |piece| match *piece {
                Stored::Keep(start, end) => PieceRef::Keep(start as usize..end as usize),
                Stored::Text(start, len) => PieceRef::Text(edits.text(start, len)),
            })
    }
}

/// A piece as stored: a range of the page, or of the edits' text (start and length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stored {
    Keep(u32, u32),
    Text(u32, u32),
}

/// An edit as stored: the page's bytes it replaces, and where its pieces are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
    first: u32,
    count: u32,
}

/// The edits of one page, in the order of their spans once [`Edits::sort`] ran.
#[derive(Debug, Default)]
pub struct Edits {
    spans: Vec<Span>,
    /// Each span's pieces one after the other, in the order the spans were pushed.
    pieces: Chunked<Stored>,
    /// Every new text, one after the other (UTF-8; each text within one block).
    text: Blocks,
}

/// The edits' offsets and lengths are 32-bit: more than 4 GiB of new text or 4 billion pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

impl Edits {
    /// Room for `spans` edits.
    pub fn with_capacity(spans: usize) -> Edits {
        Edits {
            spans: Vec::with_capacity(spans),
            ..Edits::default()
        }
    }

    /// Adds an edit of `span`, its pieces of kept bytes that follow each other joined (a
    /// start tag is kept in up to a piece per attribute).
    pub fn push(&mut self, span: Range<usize>, pieces: Vec<Piece>) -> Result<(), TooLarge> {
        let mut stored: Vec<Stored> = Vec::with_capacity(pieces.len());
        for piece in pieces {
            match (stored.last_mut(), piece) {
                (Some(Stored::Keep(_, end)), Piece::Keep(next)) if *end == next.start => {
                    *end = next.end;
                }
                (_, Piece::Keep(range)) => stored.push(Stored::Keep(range.start, range.end)),
                (_, Piece::Text(text)) => {
                    let len = u32::try_from(text.len()).map_err(|_| TooLarge)?;
                    let start = self.text.push_run(text.as_bytes())?;
                    stored.push(Stored::Text(start, len));
                }
            }
        }
        let narrow = |n: usize| u32::try_from(n).map_err(|_| TooLarge);
        self.spans.push(Span {
            start: narrow(span.start)?,
            end: narrow(span.end)?,
            first: narrow(self.pieces.len())?,
            count: narrow(stored.len())?,
        });
        for piece in stored {
            self.pieces.push(piece);
        }
        Ok(())
    }

    /// Puts the edits in the order of their spans (in place: a stable sort takes a buffer of
    /// half the list).
    pub fn sort(&mut self) {
        self.spans.sort_unstable_by_key(|s| (s.start, s.end));
    }

    /// Whether two edits (in order) replace some of the same bytes.
    pub fn overlap(&self) -> bool {
        self.spans.windows(2).any(|w| w[1].start < w[0].end)
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Bytes of new text, over all the edits.
    pub fn text_len(&self) -> usize {
        self.text.len as usize
    }

    pub fn iter(&self) -> impl Iterator<Item = Edit<'_>> + '_ {
        self.spans
            .iter()
            .map(move |&span| Edit { span, edits: self })
    }

    /// Keeps the edits for which `keep` is true.
    #[cfg(test)]
    pub fn retain(&mut self, mut keep: impl FnMut(&Edit<'_>) -> bool) {
        let kept: Vec<bool> = self.iter().map(|e| keep(&e)).collect();
        let mut kept = kept.into_iter();
        self.spans.retain(|_| kept.next().unwrap_or(false));
    }

    /// The same edits with every new text passed through `fill`, which writes what is to
    /// stand for it.
    pub fn map_text(&self, mut fill: impl FnMut(&str, &mut String)) -> Result<Edits, TooLarge> {
        let mut out = Edits::with_capacity(self.len());
        // One buffer for every text (a string and a list of pieces each were two allocations
        // per changed tag).
        let mut filled = String::new();
        for edit in self.iter() {
            let first = u32::try_from(out.pieces.len()).map_err(|_| TooLarge)?;
            let mut count = 0;
            for piece in edit.pieces() {
                let stored = match piece {
                    PieceRef::Keep(range) => Stored::Keep(range.start as u32, range.end as u32),
                    PieceRef::Text(text) => {
                        filled.clear();
                        fill(text, &mut filled);
                        let len = u32::try_from(filled.len()).map_err(|_| TooLarge)?;
                        Stored::Text(out.text.push_run(filled.as_bytes())?, len)
                    }
                };
                out.pieces.push(stored);
                count += 1;
            }
            out.spans.push(Span {
                first,
                count,
                ..edit.span
            });
        }
        Ok(out)
    }

    fn text(&self, start: u32, len: u32) -> &str {
        // Pushed as whole strings, each within one block.
        std::str::from_utf8(self.text.run(start, len)).unwrap_or_default()
    }
}

/// Bytes of a [`Blocks`] buffer in one block once the blocks have doubled to it (a longer
/// text has a block to itself).
const BLOCK: usize = 1 << 14;
/// Bytes of the first block: a page with a few edits holds a few hundred bytes of text.
const FIRST_BLOCK: usize = 256;

/// Text grown by blocks that are never moved (a doubling buffer held up to three times its
/// text while it moved it), where each text pushed stays within one block, so that it is
/// read back as one `&str`. The blocks double from [`FIRST_BLOCK`] to [`BLOCK`], as
/// [`Chunked`]'s chunks do, but a block ends where the next text would not fit.
#[derive(Debug, Default)]
struct Blocks {
    blocks: Vec<Vec<u8>>,
    /// The offset of each block's first byte.
    starts: Vec<u32>,
    len: u32,
}

impl Blocks {
    /// Adds `run`; returns the offset of its first byte.
    fn push_run(&mut self, run: &[u8]) -> Result<u32, TooLarge> {
        let fits = |b: &Vec<u8>| b.capacity() - b.len() >= run.len();
        if !self.blocks.last().is_some_and(fits) {
            // A new block starts where the last one's elements end.
            self.starts.push(self.len);
            let size = self
                .blocks
                .last()
                .map_or(FIRST_BLOCK, |b| (2 * b.capacity()).min(BLOCK));
            self.blocks.push(Vec::with_capacity(size.max(run.len())));
        }
        let start = self.len;
        self.len = u32::try_from(run.len())
            .ok()
            .and_then(|n| self.len.checked_add(n))
            .ok_or(TooLarge)?;
        if let Some(block) = self.blocks.last_mut() {
            block.extend_from_slice(run);
        }
        Ok(start)
    }

    /// The `len` bytes pushed together from offset `start`.
    fn run(&self, start: u32, len: u32) -> &[u8] {
        let block = self
            .starts
            .partition_point(|&s| s <= start)
            .saturating_sub(1);
        let (Some(items), Some(&first)) = (self.blocks.get(block), self.starts.get(block)) else {
            return &[];
        };
        let at = (start - first) as usize;
        items.get(at..at + len as usize).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(edit: &Edit<'_>) -> Vec<String> {
        edit.pieces()
            .map(|p| match p {
                PieceRef::Keep(r) => format!("{}..{}", r.start, r.end),
                PieceRef::Text(t) => t.to_string(),
            })
            .collect()
    }

    #[test]
    fn edits_give_back_their_pieces_with_adjacent_kept_bytes_joined() {
        let mut edits = Edits::with_capacity(2);
        let text = |t: &str| Piece::Text(t.to_string());
        edits
            .push(
                10..20,
                vec![Piece::Keep(10..12), Piece::Keep(12..15), text(" a")],
            )
            .unwrap();
        edits
            .push(0..5, vec![text("<b>"), Piece::Keep(1..5)])
            .unwrap();
        edits.sort();
        let got: Vec<(Range<usize>, Vec<String>)> =
            edits.iter().map(|e| (e.span(), pieces(&e))).collect();
        assert_eq!(
            got,
            vec![
                (0..5, vec!["<b>".to_string(), "1..5".to_string()]),
                (10..20, vec!["10..15".to_string(), " a".to_string()]),
            ]
        );
        assert!(!edits.overlap());
        edits.push(4..6, Vec::new()).unwrap();
        edits.sort();
        assert!(edits.overlap());
    }

    #[test]
    fn runs_longer_than_a_block_and_runs_across_block_ends_read_back_whole() {
        let mut blocks = Blocks::default();
        let small: Vec<u8> = (0..100).collect();
        let mut starts = Vec::new();
        for _ in 0..(BLOCK / 100 + 5) {
            starts.push((blocks.push_run(&small).unwrap(), small.len()));
        }
        let huge = vec![7u8; 3 * BLOCK + 1];
        starts.push((blocks.push_run(&huge).unwrap(), huge.len()));
        starts.push((blocks.push_run(&small).unwrap(), small.len()));
        for (start, len) in starts {
            let run = blocks.run(start, len as u32);
            assert_eq!(run.len(), len);
            assert!(run == &small[..] || run == &huge[..]);
        }
    }

    #[test]
    fn texts_are_mapped_and_edits_retained_by_what_they_replace() {
        let mut edits = Edits::default();
        for (i, t) in ["x", "y", "z"].into_iter().enumerate() {
            edits
                .push(i * 10..i * 10 + 1, vec![Piece::Text(t.into())])
                .unwrap();
        }
        let upper = edits
            .map_text(|t, out| out.push_str(&t.to_uppercase()))
            .unwrap();
        let texts = |e: &Edits| e.iter().flat_map(|e| pieces(&e)).collect::<Vec<_>>();
        assert_eq!(texts(&upper), ["X", "Y", "Z"]);
        let mut kept = upper;
        kept.retain(|e| e.span().start != 10);
        assert_eq!(texts(&kept), ["X", "Z"]);
    }
}
