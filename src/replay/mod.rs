//! The replay stage: re-runs the 1997 W3C experiment on a site. An embedded server serves the
//! site and a client visits it in every mode of the table ([`protocol::MODES`]) — HTTP/1.0
//! with parallel connections, HTTP/1.1 persistent, pipelined and pipelined with deflate; the
//! same over TLS (`https*`); HTTP/2 in cleartext (`h2c`, `h2c-deflate`) and over TLS (`h2`);
//! and, when asked for, HTTP/2 with push or preload hints — for a first visit and a cache
//! validation, and one meter says what each cost in bytes and packets, with Ethernet-like
//! segmentation (MSS 1460) rather than loopback's. The client is webdiet's robot (the libwww
//! robot's rules, [`robot_visitor`]), Chromium ([`chromium`]), or both.
//!
//! Built in storeys, each file importing only from its own storey or a lower one (the test
//! `tests/pipeline/replay_layers.rs` holds that; docs/replay.md draws it), lowest first:
//! - *vocabulary*: HTTP/1 framing ([`http`]), the site as served ([`served`]), the meter
//!   ([`meter`]), what a visit recorded ([`script`]), the machine's load ([`load`]);
//! - *link*: the emulated link, running ([`link`]; what a link *is* sits below the replay, in
//!   [`crate::sim::link`]);
//! - *transport*: TCP, or TLS over TCP ([`transport`]);
//! - *halves*: what a protocol's two halves are given: the robot and its vocabulary
//!   ([`robot`]), the server's options and site ([`serving`]);
//! - *protocol*: HTTP/1.x and HTTP/2, each a client half and a server half, and the table of
//!   modes ([`protocol`]); the server that runs the halves ([`server`]); the recording built
//!   into the simulator's exchange ([`recording`]);
//! - *outcome*: what a replay is asked and gives back ([`options`]), the robot's rows
//!   ([`row`]), the browser's ([`chromium::row`]) and the visitor checked against them
//!   ([`chromium::validate`]);
//! - *clients*: the one [`driver`] that runs every client over a link, and the clients: the
//!   robot ([`robot_visitor`]), Chromium ([`chromium`]), simulated time ([`simulated`]);
//! - *place*: where a replay runs ([`place`]: a namespace of its own, or the host), the stage's
//!   entry point [`replay`], and the document-size [`study`] made of replays.
//!
//! This file is the face: modules and the names other stages use, nothing of its own.
//! `replay(&ServedSite, &ReplayOptions) -> Replay`.

pub mod chromium;
pub mod driver;
pub mod http;
pub mod link;
pub mod load;
pub mod meter;
pub mod options;
pub mod place;
pub mod protocol;
pub mod recording;
pub mod robot;
pub mod robot_visitor;
pub mod row;
pub mod script;
pub mod served;
pub mod server;
pub mod serving;
pub mod simulated;
pub mod study;
pub mod transport;

pub use crate::sim::headers::HeaderSet;
pub use crate::sim::link::Link;
pub use chromium::BrowserRow;
pub use meter::Counters;
pub use options::{
    patience, ChromiumOptions, ClientKind, LinkRun, Method, Pages, Replay, ReplayOptions,
};
pub use place::here::run_here;
pub use place::run::{replay, replay_with};
pub use protocol::Mode;
pub use robot::{ClientOptions, RequestTiming, Test, Visit};
pub use row::{ReplayRow, RowLink, Spread, TlsRow};
pub use served::ServedSite;
pub use server::ServerOptions;
pub use transport::{Cipher, TlsOptions, TlsVersion};

#[cfg(test)]
mod recording_tests;
#[cfg(test)]
pub(crate) mod tests;
