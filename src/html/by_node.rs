//! A number for some of a tree's nodes, found by node number in constant time and 4 bytes a
//! node: a pass that keeps something for a few elements (their original attributes, their
//! style, their start-tag token) finds it again without a hash map, which took megabytes on a
//! huge page (docs/markup.md, "Target met"), or a scan of every element kept so far, which was
//! quadratic.

/// The mark of a node with no number.
const NONE: u32 = u32::MAX;

/// An optional `u32` (below `u32::MAX`) by node number.
#[derive(Debug, Default)]
pub struct ByNode(Vec<u32>);

impl ByNode {
    /// `node`'s number, if it has one.
    pub fn get(&self, node: usize) -> Option<u32> {
        self.0.get(node).copied().filter(|&n| n != NONE)
    }

    /// Numbers `node` with `value`. The first time a node lies past the end, the list grows to
    /// `nodes` (the tree's size, so that it grows once) or just past `node`.
    pub fn set(&mut self, node: usize, value: u32, nodes: usize) {
        debug_assert_ne!(value, NONE, "u32::MAX is the mark of no number");
        if self.0.len() <= node {
            self.0.resize(nodes.max(node + 1), NONE);
        }
        self.0[node] = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_has_the_number_last_set_and_others_none_even_past_the_end() {
        let mut by = ByNode::default();
        assert_eq!(by.get(3), None);
        by.set(3, 0, 10);
        by.set(7, 5, 10);
        by.set(7, 6, 10);
        assert_eq!(
            (by.get(3), by.get(7), by.get(4), by.get(12)),
            (Some(0), Some(6), None, None)
        );
        by.set(20, 1, 10);
        assert_eq!((by.get(20), by.get(19)), (Some(1), None));
    }
}
