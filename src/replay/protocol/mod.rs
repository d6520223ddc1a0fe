//! The protocols of the replay, each with a client half and a server half, and the table of
//! modes: a mode is a protocol's client half, the server half that answers it, and the
//! transport both run on. A new mode is a new module plus one line in [`MODES`].

pub mod h2;
pub mod http1;

use std::net::TcpStream;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::robot::{Cache, Robot, Test, Visit, VisitError};
use super::server::ServeContext;
use super::transport::tcp::Wire;
use super::transport::Connector;

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

/// One replay mode.
pub struct ModeSpec {
    /// The name in options, reports and budgets.
    pub name: &'static str,
    /// One line for `--help` and the report.
    pub summary: &'static str,
    pub client: &'static dyn ClientHalf,
    pub server: &'static dyn ServerHalf,
    pub transport: Transport,
    /// The same mode in cleartext, for a mode over TLS: what TLS costs is the difference.
    pub cleartext: Option<&'static str>,
    /// Replayed when no `--modes` are given. The variants that answer one question each
    /// (push, hints) are asked for by name or with `--push` / `--hints`.
    pub default: bool,
    /// `--client chromium` loads the site in this mode too: the server half and transport are
    /// what a browser speaks, with the browser's own connections, and no other mode of the
    /// table gives the browser the same run (`persistent` stands for HTTP/1.1 in cleartext).
    pub browser: bool,
}

/// Every mode, in the order reports list them.
pub static MODES: &[ModeSpec] = &[
    ModeSpec {
        name: "http10",
        summary: "HTTP/1.0, a new connection per request, several in parallel",
        client: &http1::HTTP10,
        server: &http1::SERVER,
        transport: Transport::Tcp,
        cleartext: None,
        default: true,
        browser: false,
    },
    ModeSpec {
        name: "persistent",
        summary: "HTTP/1.1, one connection, one request at a time",
        client: &http1::PERSISTENT,
        server: &http1::SERVER,
        transport: Transport::Tcp,
        cleartext: None,
        default: true,
        browser: true,
    },
    ModeSpec {
        name: "pipelined",
        summary: "HTTP/1.1, one connection, requests written back to back",
        client: &http1::PIPELINED,
        server: &http1::SERVER,
        transport: Transport::Tcp,
        cleartext: None,
        default: true,
        browser: false,
    },
    ModeSpec {
        name: "pipelined-deflate",
        summary: "pipelined, accepting Content-Encoding: deflate",
        client: &http1::PIPELINED_DEFLATE,
        server: &http1::SERVER,
        transport: Transport::Tcp,
        cleartext: None,
        default: true,
        browser: false,
    },
    ModeSpec {
        name: "https10",
        summary: "http10 over TLS: every connection pays a full or resumed handshake",
        client: &http1::HTTP10,
        server: &http1::SERVER,
        transport: Transport::Tls,
        cleartext: Some("http10"),
        default: true,
        browser: false,
    },
    ModeSpec {
        name: "https-persistent",
        summary: "persistent over TLS",
        client: &http1::PERSISTENT,
        server: &http1::SERVER,
        transport: Transport::Tls,
        cleartext: Some("persistent"),
        default: true,
        browser: true,
    },
    ModeSpec {
        name: "https-pipelined",
        summary: "pipelined over TLS: one handshake for the whole page",
        client: &http1::PIPELINED,
        server: &http1::SERVER,
        transport: Transport::Tls,
        cleartext: Some("pipelined"),
        default: true,
        browser: false,
    },
    ModeSpec {
        name: "https-pipelined-deflate",
        summary: "pipelined-deflate over TLS",
        client: &http1::PIPELINED_DEFLATE,
        server: &http1::SERVER,
        transport: Transport::Tls,
        cleartext: Some("pipelined-deflate"),
        default: true,
        browser: false,
    },
    ModeSpec {
        name: "h2c",
        summary: "HTTP/2 over cleartext TCP, every request at once on one connection",
        client: &h2::H2C,
        server: &h2::SERVER,
        transport: Transport::Tcp,
        cleartext: None,
        default: true,
        browser: false,
    },
    ModeSpec {
        name: "h2c-deflate",
        summary: "h2c, accepting compressed text",
        client: &h2::H2C_DEFLATE,
        server: &h2::SERVER,
        transport: Transport::Tcp,
        cleartext: None,
        default: true,
        browser: false,
    },
    ModeSpec {
        name: "h2",
        summary: "HTTP/2 over TLS, agreed by ALPN, every request at once on one connection",
        client: &h2::H2C,
        server: &h2::SERVER,
        transport: Transport::Tls,
        cleartext: Some("h2c"),
        default: true,
        browser: true,
    },
    ModeSpec {
        name: "h2c-push",
        summary: "h2c with server push of everything a page needs on a first visit",
        client: &h2::H2C_PUSH,
        server: &h2::SERVER_PUSH,
        transport: Transport::Tcp,
        cleartext: None,
        default: false,
        browser: false,
    },
    ModeSpec {
        name: "h2c-hints",
        summary: "h2c with link: rel=preload hints on the page's response",
        client: &h2::H2C_HINTS,
        server: &h2::SERVER_HINTS,
        transport: Transport::Tcp,
        cleartext: None,
        default: false,
        browser: false,
    },
    ModeSpec {
        name: "h2-push",
        summary: "h2 (over TLS) with server push of everything a page needs on a first visit",
        client: &h2::H2C_PUSH,
        server: &h2::SERVER_PUSH,
        transport: Transport::Tls,
        cleartext: Some("h2c-push"),
        default: false,
        // Chromium no longer accepts server push (since version 106).
        browser: false,
    },
    ModeSpec {
        name: "h2-hints",
        summary: "h2 (over TLS) with link: rel=preload hints on the page's response",
        client: &h2::H2C_HINTS,
        server: &h2::SERVER_HINTS,
        transport: Transport::Tls,
        cleartext: Some("h2c-hints"),
        default: false,
        browser: false,
    },
];

/// A mode, by its place in [`MODES`]; written as its name.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mode(usize);

impl Mode {
    /// Every mode, in table order.
    pub fn all() -> Vec<Mode> {
        (0..MODES.len()).map(Mode).collect()
    }

    /// The modes replayed when none are named, in table order.
    pub fn defaults() -> Vec<Mode> {
        Mode::all()
            .into_iter()
            .filter(|m| m.spec().default)
            .collect()
    }

    /// The mode called `name`.
    pub fn named(name: &str) -> Option<Mode> {
        MODES.iter().position(|m| m.name == name).map(Mode)
    }

    /// The names of every mode, for messages that list the valid ones.
    pub fn names() -> Vec<&'static str> {
        MODES.iter().map(|m| m.name).collect()
    }

    pub fn spec(self) -> &'static ModeSpec {
        &MODES[self.0]
    }

    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// Whether this mode runs over TLS.
    pub fn is_tls(self) -> bool {
        self.spec().transport == Transport::Tls
    }
}

impl std::fmt::Debug for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mode::named(s).ok_or_else(|| {
            format!(
                "unknown mode {s:?}; the modes are {}",
                Mode::names().join(", ")
            )
        })
    }
}

impl Serialize for Mode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Mode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_is_found_by_its_name_and_names_are_unique() {
        let names = Mode::names();
        let unique: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        for mode in Mode::all() {
            assert_eq!(Mode::named(mode.as_str()), Some(mode));
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(serde_json::from_str::<Mode>(&json).unwrap(), mode);
        }
        assert!("http2.5".parse::<Mode>().unwrap_err().contains("pipelined"));
    }

    #[test]
    fn a_browser_runs_one_cleartext_http1_mode_and_no_h2_without_tls_nor_push_or_hints() {
        let browser: Vec<Mode> = Mode::all()
            .into_iter()
            .filter(|m| m.spec().browser)
            .collect();
        let cleartext: Vec<&Mode> = browser.iter().filter(|m| !m.is_tls()).collect();
        assert_eq!(
            cleartext.len(),
            1,
            "one HTTP/1.1 mode in cleartext: {browser:?}"
        );
        for mode in &browser {
            let spec = mode.spec();
            assert!(spec.default, "{mode}: a browser mode is a default mode");
            let h2 = !spec.client.alpn().is_empty();
            assert!(
                !h2 || mode.is_tls(),
                "{mode}: browsers speak h2 over TLS only"
            );
            assert!(
                std::ptr::addr_eq(spec.server, &http1::SERVER as &dyn ServerHalf)
                    || std::ptr::addr_eq(spec.server, &h2::SERVER as &dyn ServerHalf),
                "{mode}: the plain server halves, no push or hints"
            );
        }
        assert!(browser.contains(&Mode::named("h2").unwrap()));
    }

    #[test]
    fn every_mode_over_tls_names_its_own_cleartext_twin_with_the_same_halves() {
        let mut twins = std::collections::BTreeSet::new();
        for mode in Mode::all().into_iter().filter(|m| m.is_tls()) {
            let spec = mode.spec();
            let twin = Mode::named(spec.cleartext.expect("a TLS mode names its twin")).unwrap();
            assert!(!twin.is_tls(), "{mode}");
            assert!(std::ptr::addr_eq(spec.client, twin.spec().client), "{mode}");
            assert!(
                twins.insert(twin),
                "{mode}: another TLS mode has the same twin"
            );
        }
        for name in ["http10", "persistent", "pipelined", "pipelined-deflate"] {
            assert!(
                twins.contains(&Mode::named(name).unwrap()),
                "{name} has no TLS twin"
            );
        }
    }
}
