//! The table of modes: a mode is a protocol's client half, the server half that answers it,
//! and the transport both run on ([`MODES`]), and the part it plays in reports ([`Role`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::half::{ClientHalf, ServerHalf, Transport};
use super::{h2, http1};

/// A part a mode plays outside the replay: in a report's figures, the budgets' default and the
/// options that ask for a group of modes. Code that needs "the mode that …" asks the table
/// ([`Mode::with_role`], [`Mode::headline_order`], …) instead of naming a mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Quoted in the byte headline, by rank (0 first): the first of these that ran on both
    /// site versions is the headline. Rank 0 is also the reference mode: budgets are checked
    /// in it unless `budget_mode` says otherwise, and the time headline is measured in it.
    Headline(u8),
    /// The same mode accepting `Content-Encoding: deflate`, for the named mode: the pair
    /// prices compression in the replay.
    DeflateOf(&'static str),
    /// HTTP/1.x with a new connection per request: what a request costs when each one pays
    /// for a connection (the rewrite priced by protocol, the TLS study, the TLS headline).
    ConnectionPerRequest,
    /// HTTP/2, every request at once on one connection, in cleartext: the other side of the
    /// rewrite priced by protocol (over TLS when its TLS twin ran).
    Multiplexed,
    /// The two sides of the header-compression comparison: the same requests on one
    /// connection, HTTP/1.1 header text against HPACK.
    HeaderCostHttp1,
    HeaderCostH2,
    /// One of the variants that answer one question each, asked for with `--push` or
    /// `--hints` (or by name).
    Answers(Question),
    /// Chromium's headline mode, by rank (0 first), among the `browser` modes.
    BrowserHeadline(u8),
    /// The mode of the time headline ("first visit on Cable (h2, simulated)"): what a
    /// browser speaks today.
    TimeHeadline,
}

/// What a non-default variant of a mode measures (see [`Role::Answers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Question {
    /// Server push of everything a page needs (`--push`).
    Push,
    /// `link: rel=preload` hints on the page's response (`--hints`).
    Hints,
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
    /// The parts this mode plays in reports, budgets and options.
    pub roles: &'static [Role],
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
        roles: &[Role::Headline(2), Role::ConnectionPerRequest],
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
        roles: &[
            Role::Headline(1),
            Role::HeaderCostHttp1,
            Role::BrowserHeadline(1),
        ],
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
        roles: &[Role::Headline(0)],
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
        roles: &[Role::Headline(3), Role::DeflateOf("pipelined")],
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
        roles: &[],
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
        roles: &[Role::BrowserHeadline(2)],
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
        roles: &[],
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
        roles: &[Role::DeflateOf("https-pipelined")],
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
        roles: &[Role::Multiplexed, Role::HeaderCostH2],
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
        roles: &[Role::DeflateOf("h2c")],
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
        roles: &[Role::BrowserHeadline(0), Role::TimeHeadline],
    },
    ModeSpec {
        name: "h2c-br",
        summary: "h2c, accepting brotli: the server sends text as brotli (level 5)",
        client: &h2::H2C_BROTLI,
        server: &h2::SERVER_BROTLI,
        transport: Transport::Tcp,
        cleartext: None,
        default: false,
        browser: false,
        roles: &[],
    },
    ModeSpec {
        name: "h2-br",
        summary: "h2 (over TLS) accepting brotli: what today's browsers get from today's servers",
        client: &h2::H2C_BROTLI,
        server: &h2::SERVER_BROTLI,
        transport: Transport::Tls,
        cleartext: Some("h2c-br"),
        default: false,
        browser: false,
        roles: &[],
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
        roles: &[Role::Answers(Question::Push)],
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
        roles: &[Role::Answers(Question::Hints)],
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
        roles: &[Role::Answers(Question::Push)],
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
        roles: &[Role::Answers(Question::Hints)],
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

    /// Whether the table gives this mode `role`.
    pub fn has(self, role: Role) -> bool {
        self.spec().roles.contains(&role)
    }

    /// The first mode of the table with `role`.
    pub fn with_role(role: Role) -> Option<Mode> {
        Mode::all().into_iter().find(|m| m.has(role))
    }

    /// The modes the byte headline prefers, best first ([`Role::Headline`]).
    pub fn headline_order() -> Vec<Mode> {
        Mode::ranked(|role| match role {
            Role::Headline(rank) => Some(rank),
            _ => None,
        })
    }

    /// The browser modes Chromium's headline prefers, best first ([`Role::BrowserHeadline`]).
    pub fn browser_headline_order() -> Vec<Mode> {
        Mode::ranked(|role| match role {
            Role::BrowserHeadline(rank) => Some(rank),
            _ => None,
        })
    }

    /// The reference mode: rank 0 of the headline, the budgets' default.
    pub fn reference() -> Mode {
        Mode::with_role(Role::Headline(0)).expect("the mode table has a headline mode of rank 0")
    }

    /// The modes that answer `question` (`--push`, `--hints`), in table order.
    pub fn answering(question: Question) -> Vec<Mode> {
        Mode::all()
            .into_iter()
            .filter(|m| m.has(Role::Answers(question)))
            .collect()
    }

    /// This mode accepting deflate ([`Role::DeflateOf`]).
    pub fn deflated(self) -> Option<Mode> {
        Mode::with_role(Role::DeflateOf(self.as_str()))
    }

    /// The same mode in cleartext, for a mode over TLS.
    pub fn cleartext(self) -> Option<Mode> {
        self.spec().cleartext.and_then(Mode::named)
    }

    /// The same mode over TLS, for a cleartext mode that has one.
    pub fn over_tls(self) -> Option<Mode> {
        Mode::all()
            .into_iter()
            .find(|m| m.spec().cleartext == Some(self.as_str()))
    }

    /// The modes that have a rank by `rank`, lowest rank first.
    fn ranked(rank: impl Fn(Role) -> Option<u8>) -> Vec<Mode> {
        let mut out: Vec<(u8, Mode)> = Mode::all()
            .into_iter()
            .flat_map(|m| {
                m.spec()
                    .roles
                    .iter()
                    .filter_map(|r| rank(*r))
                    .map(move |k| (k, m))
            })
            .collect();
        out.sort();
        out.into_iter().map(|(_, m)| m).collect()
    }
}

impl std::fmt::Debug for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
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
    fn every_role_that_names_one_mode_is_played_by_exactly_one_and_ranks_run_from_zero() {
        for role in [
            Role::ConnectionPerRequest,
            Role::Multiplexed,
            Role::HeaderCostHttp1,
            Role::HeaderCostH2,
        ] {
            let players: Vec<Mode> = Mode::all().into_iter().filter(|m| m.has(role)).collect();
            assert_eq!(players.len(), 1, "{role:?}: {players:?}");
            assert!(!players[0].is_tls(), "{role:?}: the cleartext mode");
        }
        let time: Vec<Mode> = Mode::all()
            .into_iter()
            .filter(|m| m.has(Role::TimeHeadline))
            .collect();
        assert_eq!(time.len(), 1, "one time headline mode: {time:?}");
        assert!(
            time[0].spec().default,
            "the time headline mode is replayed by default"
        );
        for order in [Mode::headline_order(), Mode::browser_headline_order()] {
            let unique: std::collections::BTreeSet<_> = order.iter().collect();
            assert_eq!(unique.len(), order.len(), "{order:?}");
            assert!(!order.is_empty());
        }
        assert_eq!(Mode::headline_order()[0], Mode::reference());
        for mode in Mode::browser_headline_order() {
            assert!(
                mode.spec().browser,
                "{mode}: a browser headline mode is a browser mode"
            );
        }
        for mode in Mode::all() {
            for role in mode.spec().roles {
                if let Role::DeflateOf(plain) = role {
                    let plain = Mode::named(plain).expect("DeflateOf names a mode");
                    assert_eq!(plain.deflated(), Some(mode));
                    assert_eq!(plain.is_tls(), mode.is_tls(), "{mode}");
                }
            }
        }
        assert!(
            Mode::reference().deflated().is_some(),
            "the reference has a deflate twin"
        );
        for q in [Question::Push, Question::Hints] {
            let modes = Mode::answering(q);
            assert!(!modes.is_empty(), "{q:?}");
            assert!(
                modes.iter().all(|m| !m.spec().default),
                "{q:?} is asked for"
            );
        }
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
            let mode = Mode::named(name).unwrap();
            assert!(twins.contains(&mode), "{name} has no TLS twin");
            assert_eq!(mode.over_tls().and_then(Mode::cleartext), Some(mode));
        }
    }
}
