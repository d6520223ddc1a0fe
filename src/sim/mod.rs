//! The simulated world, below every stage that asks it something: a link as described
//! ([`link`]), TCP over it in simulated time ([`simulate`]), the request headers a client sends
//! ([`headers`]), and a browser's load of a page to its paint ([`paint`]).
//!
//! Pure functions of their input, with no socket and no clock: the rewrite asks them whether a
//! CSS choice makes a page paint later, the replay runs its emulated links and its simulated
//! time on them, the audit reports what the visitor sees. Its place below `rewrite` and
//! `replay` is why it is not inside either (docs/replay.md, "Storeys").

pub mod headers;
pub mod link;
pub mod paint;
pub mod simulate;
