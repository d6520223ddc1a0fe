//! What a protocol's server half is given: the server's options ([`ServerOptions`]) and the
//! site it answers from ([`ServeContext`]). Below the protocols, so that their server halves
//! and the server that runs them ([`super::server`]) share it without a circle.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use super::served::{Resource, ServedSite};
use super::transport::TcpOptions;
use crate::site::resolve::{Resolver, Target};

/// How the server behaves.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServerOptions {
    /// The address to listen on. Default: 127.0.0.1.
    pub ip: IpAddr,
    /// The port. Default: 0 (an ephemeral port).
    pub port: u16,
    /// Socket options.
    pub tcp: TcpOptions,
    /// The per-connection response buffer: flushed once it holds this many bytes. Requests are
    /// answered as they are parsed, so the pipeline depth the server holds is bounded by one
    /// 16 KiB read plus this buffer. Default: 64 KiB.
    pub buffer: usize,
    /// How long the rest of a partly received pipelined request (HTTP/1: its head; HTTP/2:
    /// its frame) may keep the response buffer waiting. Default: 50 ms (libwww's flush timer).
    pub partial_wait: Duration,
    /// Longest request head accepted. Default: 8 KiB.
    pub max_request_head: usize,
    /// How long a connection may stay silent. Default: 10 s.
    pub idle_timeout: Duration,
    /// How long a request head may take to arrive once it has started (slow-loris bound).
    /// Default: 10 s.
    pub request_timeout: Duration,
    /// How long one write may block on a client that does not read. Default: 10 s.
    pub write_timeout: Duration,
    /// Connections from others served at once; more are refused (503). The replay's own
    /// client is never refused. Default: 128.
    pub max_connections: usize,
    /// Test hook: close each connection after this many responses, with requests outstanding
    /// (what libwww had to survive). Default: none.
    pub close_after: Option<usize>,
    /// Every 200 carries `Cache-Control: no-cache`, so that a browser's second visit asks
    /// again for each response (a conditional request, a 304) instead of trusting heuristic
    /// freshness from `Last-Modified`. Default: `false`; `--client chromium` sets it for the
    /// browser's runs (webdiet's robot revalidates anyway, and its header bytes stay the
    /// study's).
    #[serde(default)]
    pub revalidate: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            tcp: TcpOptions::default(),
            buffer: 64 << 10,
            partial_wait: Duration::from_millis(50),
            max_request_head: 8 << 10,
            idle_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            max_connections: 128,
            close_after: None,
            revalidate: false,
        }
    }
}

/// What a server half needs to answer requests.
pub struct ServeContext<'a> {
    pub site: &'a ServedSite,
    pub resolver: &'a Resolver<'a>,
    pub opts: &'a ServerOptions,
    /// The `Date` every response carries: the site's own (`ServedSite::date`), so that the
    /// bytes of HTTP/2's compressed headers are the same on every run.
    pub date: String,
}

impl<'a> ServeContext<'a> {
    /// A context dated by the site, its bodies compressed ([`ServedSite::encode_all`]).
    pub fn new(site: &'a ServedSite, resolver: &'a Resolver<'a>, opts: &'a ServerOptions) -> Self {
        site.encode_all();
        ServeContext {
            site,
            resolver,
            opts,
            date: site.date(),
        }
    }

    /// The site file a request target (`/path?query`) names, resolved as a browser's URL
    /// would be, with its site path.
    pub fn lookup(&self, target: &str) -> Option<(String, &Resource)> {
        if !target.starts_with('/') {
            return None;
        }
        if let Some(res) = self.site.captured_at(target) {
            return Some((target.to_string(), res));
        }
        let origin = url::Url::parse("http://webdiet.invalid/").expect("constant URL parses");
        match self.resolver.resolve(&origin, target) {
            Target::Local { path, .. } => {
                let res = self.site.resource(&path)?;
                Some((path, res))
            }
            _ => None,
        }
    }
}
