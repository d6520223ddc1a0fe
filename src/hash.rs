//! Hash maps for the large tables of one page (a 15 MB page holds a million tags, and the
//! sheet's rule names 180,000 keys): aHash, keyed at random per process as std's SipHash is (a
//! hostile page cannot choose keys that collide), and several times faster on the short keys
//! these tables hold. The only module that names ahash.

/// A hash map with [`RandomState`].
pub type Map<K, V> = std::collections::HashMap<K, V, RandomState>;
/// A hash set with [`RandomState`].
pub type Set<T> = std::collections::HashSet<T, RandomState>;
pub use ahash::RandomState;
