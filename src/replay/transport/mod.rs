//! The transport layer of the replay: how a protocol's bytes reach the other side. Today plain
//! TCP ([`tcp`]); TLS will sit here too. A protocol sees a client [`Conn`] (write, read into a
//! buffer, finish → counters) and a server [`Wire`](tcp::Wire), never a socket option.

pub mod tcp;

pub use tcp::{Conn, Connector, OwnClients, TcpOptions};
