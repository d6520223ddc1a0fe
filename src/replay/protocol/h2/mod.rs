//! HTTP/2, the SPDY experiment standardised: one connection, every request of a page at once
//! on its own stream, HPACK-compressed headers, RFC 9218 priorities, server push and preload
//! hints. Built on the `h2` crate; see [`client`] and [`server`] for how each half behaves,
//! [`io`] for what the client's socket sees, and [`model`] for the deterministic packet
//! figure built from the frames.
//!
//! The cleartext modes use prior knowledge (`h2c`): the client starts with the HTTP/2 preface,
//! no upgrade, which separates the protocol's effect from TLS's.

pub mod client;
pub mod io;
pub mod model;
pub mod server;

use crate::compression::Coding;
pub use client::H2Client;
pub use server::H2Server;

/// `h2c`: HTTP/2 over cleartext TCP.
pub static H2C: H2Client = H2Client {
    accept: None,
    push: false,
    hints: false,
};
/// `h2c-deflate`: with `accept-encoding` for compressed text.
pub static H2C_DEFLATE: H2Client = H2Client {
    accept: Some("deflate"),
    push: false,
    hints: false,
};
/// `h2c-br`: accepting brotli (the robot says `accept-encoding: br`).
pub static H2C_BROTLI: H2Client = H2Client {
    accept: Some("br"),
    push: false,
    hints: false,
};
/// `h2c-push`: accepting server push.
pub static H2C_PUSH: H2Client = H2Client {
    accept: None,
    push: true,
    hints: false,
};
/// `h2c-hints`: following preload hints.
pub static H2C_HINTS: H2Client = H2Client {
    accept: None,
    push: false,
    hints: true,
};

/// The server of `h2c` and `h2c-deflate`.
pub static SERVER: H2Server = H2Server {
    push: false,
    hints: false,
    prefer: None,
};
/// The server of `h2c-br`: sends brotli to a client that accepts it, as today's servers do.
pub static SERVER_BROTLI: H2Server = H2Server {
    push: false,
    hints: false,
    prefer: Some(Coding::Brotli),
};
/// The server of `h2c-push`: pushes what a page needs on a first visit.
pub static SERVER_PUSH: H2Server = H2Server {
    push: true,
    hints: false,
    prefer: None,
};
/// The server of `h2c-hints`: names what a page needs in `link: rel=preload`.
pub static SERVER_HINTS: H2Server = H2Server {
    push: false,
    hints: true,
    prefer: None,
};

#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod hostile_tests;
