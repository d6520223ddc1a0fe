//! The two halves every protocol has: the client's ([`ClientHalf`]: one visit of one page, for
//! the robot) and the server's ([`ServerHalf`]: one accepted connection), and what carries them
//! ([`Transport`]).

use std::net::TcpStream;

use crate::replay::robot::{Cache, Robot, Test, Visit, VisitError};
use crate::replay::serving::ServeContext;
use crate::replay::transport::tcp::Wire;
use crate::replay::transport::Connector;

/// The client half of a protocol: one visit of one page.
pub trait ClientHalf: Sync {
    /// Shows `page`: fetches it and everything it needs over connections from `connector`.
    /// `Test::Validate` uses (and the first visit fills) `cache`.
    fn visit(
        &self,
        robot: &Robot<'_>,
        connector: &Connector<'_>,
        page: &str,
        test: Test,
        cache: &mut Cache,
    ) -> Result<Visit, VisitError>;

    /// The protocols this client offers by ALPN over TLS (none by default: the HTTP/1 modes
    /// negotiate nothing, as the 1998 study's clients did not).
    fn alpn(&self) -> &'static [&'static [u8]] {
        &[]
    }
}

/// The server half of a protocol.
pub trait ServerHalf: Sync {
    /// Serves one accepted connection until it ends.
    fn serve(&self, wire: Wire, cx: &ServeContext<'_>);
    /// Answers a cleartext connection the server has no room for (503), then drops it. (Over
    /// TLS the server drops such a connection without a handshake.)
    fn refuse(&self, stream: TcpStream);
}

/// What carries a mode's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Tcp,
    /// TLS over TCP (`--tls`, `--resumption`, `--cipher`).
    Tls,
}
