//! HTTP/1.0 and 1.1, the protocols of the 1997 study: the robot's client half in its three
//! styles (HTTP/1.0 with parallel connections, persistent, pipelined) and the buffering server
//! half, over the framing in [`message`] ([`crate::replay::http`], below the protocols).

pub mod client;
pub mod server;

pub use crate::replay::http as message;
pub use client::{ClientOptions, Http1Client, Style};
pub use server::Http1Server;

/// `http10`: a new connection per request, several in parallel.
pub static HTTP10: Http1Client = Http1Client {
    style: Style::Parallel,
    deflate: false,
};
/// `persistent`: one connection, one request at a time.
pub static PERSISTENT: Http1Client = Http1Client {
    style: Style::Persistent,
    deflate: false,
};
/// `pipelined`: one connection, requests written back to back.
pub static PIPELINED: Http1Client = Http1Client {
    style: Style::Pipelined,
    deflate: false,
};
/// `pipelined-deflate`: pipelined, accepting `Content-Encoding: deflate`.
pub static PIPELINED_DEFLATE: Http1Client = Http1Client {
    style: Style::Pipelined,
    deflate: true,
};
/// The server every HTTP/1 mode talks to.
pub static SERVER: Http1Server = Http1Server;
