//! A list that grows by chunks instead of doubling, for the parse's tree and source map and a
//! page's edits: a page of 15 MB makes millions of nodes and tokens, and a doubling `Vec` holds
//! up to twice their size, and three times while it moves them to a larger buffer. Here nothing
//! is ever moved, and the slack is one chunk. The first chunks double from [`FIRST`] up to
//! [`CHUNK`], so that a short list (a page with one edit, kept until its site's pages are
//! priced) holds a few hundred bytes, not a full chunk.

/// Elements in the first chunk.
const FIRST: usize = 16;
/// Elements per chunk once the chunks have doubled to it.
const CHUNK: usize = 4096;
/// The chunks that double: `FIRST << k` elements for `k` below this.
const DOUBLING: usize = (CHUNK / FIRST).trailing_zeros() as usize;
/// The elements the doubling chunks hold together.
const DOUBLED: usize = FIRST * ((1 << DOUBLING) - 1);

/// Chunk `k`'s size.
fn chunk_size(k: usize) -> usize {
    if k < DOUBLING {
        FIRST << k
    } else {
        CHUNK
    }
}

/// Which chunk holds element `i`, and where in it.
fn locate(i: usize) -> (usize, usize) {
    if i < DOUBLED {
        let k = (i / FIRST + 1).ilog2() as usize;
        (k, i - FIRST * ((1 << k) - 1))
    } else {
        let past = i - DOUBLED;
        (DOUBLING + past / CHUNK, past % CHUNK)
    }
}

/// A growable list in chunks (see the module documentation).
#[derive(Debug)]
pub struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    /// A list of one element.
    pub fn one(item: T) -> Self {
        let mut list = Chunked::default();
        list.push(item);
        list
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        let (k, at) = locate(i);
        self.chunks.get(k)?.get(at)
    }

    pub fn push(&mut self, item: T) {
        if self.chunks.last().is_none_or(|c| c.len() == c.capacity()) {
            self.chunks
                .push(Vec::with_capacity(chunk_size(self.chunks.len())));
        }
        if let Some(last) = self.chunks.last_mut() {
            last.push(item);
            self.len += 1;
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        self.chunks.iter().flatten()
    }

    /// The elements from `start` on, in order.
    pub fn from(&self, start: usize) -> impl DoubleEndedIterator<Item = &T> + '_ {
        let (chunk, at) = locate(start);
        let first = self
            .chunks
            .get(chunk)
            .map_or(&[][..], |c| &c[at.min(c.len())..]);
        first
            .iter()
            .chain(self.chunks.iter().skip(chunk + 1).flatten())
    }

    /// Elements the chunks have room for: [`Chunked::len`] plus less than one chunk (and less
    /// than the list's length while the chunks still double).
    pub fn capacity(&self) -> usize {
        self.chunks.iter().map(Vec::capacity).sum()
    }
}

impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        let (k, at) = locate(i);
        &self.chunks[k][at]
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        let (k, at) = locate(i);
        &mut self.chunks[k][at]
    }
}

impl<'a, T> IntoIterator for &'a Chunked<T> {
    type Item = &'a T;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'a, Vec<T>>>;
    fn into_iter(self) -> Self::IntoIter {
        self.chunks.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_holds_what_is_pushed_in_order_with_less_than_a_chunk_of_slack() {
        let mut list = Chunked::default();
        let n = 3 * CHUNK + 5;
        for i in 0..n {
            list.push(i);
        }
        assert_eq!(list.len(), n);
        assert!(list.iter().copied().eq(0..n));
        assert!(list.from(CHUNK - 2).copied().eq(CHUNK - 2..n));
        assert!(list.from(n).next().is_none());
        assert_eq!(list[2 * CHUNK + 1], 2 * CHUNK + 1);
        list[7] = 70;
        assert_eq!((&list).into_iter().nth(7), Some(&70));
        assert!(list.capacity() >= n && list.capacity() < n + CHUNK);
    }

    #[test]
    fn a_short_list_holds_little_and_every_element_is_found_where_it_was_pushed() {
        assert_eq!(Chunked::one(1u8).capacity(), FIRST);
        let mut list = Chunked::default();
        for i in 0..DOUBLED + 2 * CHUNK + 3 {
            list.push(i);
            assert!(list.capacity() - list.len() < list.len().max(CHUNK));
        }
        for i in 0..list.len() {
            assert_eq!((list[i], list.get(i)), (i, Some(&i)));
            assert_eq!(list.from(i).next(), Some(&i));
        }
        assert_eq!(list.get(list.len()), None);
    }
}
