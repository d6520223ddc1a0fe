//! A list that grows by fixed chunks instead of doubling, for the parse's tree and source
//! map: a page of 15 MB makes millions of nodes and tokens, and a doubling `Vec` holds up to
//! twice their size, and three times while it moves them to a larger buffer. Here the slack is
//! one chunk and nothing is ever moved.

/// Elements per chunk.
const CHUNK: usize = 4096;

/// A growable list in chunks of [`CHUNK`] elements.
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
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    pub fn push(&mut self, item: T) {
        if self.len % CHUNK == 0 {
            self.chunks.push(Vec::with_capacity(CHUNK));
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
        let (chunk, at) = (start / CHUNK, start % CHUNK);
        let first = self
            .chunks
            .get(chunk)
            .map_or(&[][..], |c| &c[at.min(c.len())..]);
        first
            .iter()
            .chain(self.chunks.iter().skip(chunk + 1).flatten())
    }

    /// Elements the chunks have room for: [`Chunked::len`] plus less than one chunk.
    pub fn capacity(&self) -> usize {
        self.chunks.iter().map(Vec::capacity).sum()
    }
}

impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / CHUNK][i % CHUNK]
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
}
