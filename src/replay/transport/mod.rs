//! The transport layer of the replay: how a protocol's bytes reach the other side — plain TCP
//! ([`tcp`]), or TLS over it ([`tls`]). A protocol sees a client [`Conn`] (write, read into a
//! buffer, finish → counters) and a server [`Wire`](tcp::Wire), never a socket option and
//! never a TLS record: both carry an optional TLS session inside.

pub mod tcp;
pub mod tls;

pub use tcp::{Conn, Connector, OwnClients, TcpOptions};
pub use tls::{Cipher, ServerTls, TlsOptions, TlsVersion};

#[cfg(test)]
mod tls_tests;
