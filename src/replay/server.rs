//! The replay's server, whatever protocol it speaks: listens (or serves on a socket the
//! replay holds for all its servers, [`Server::start_on`]), accepts, admits, and hands each
//! connection to the mode's server half on a thread of its own (bounded), so a slow or hostile
//! client holds only its own thread, never the others. The replay's own client is always
//! admitted; others beyond `max_connections` get the protocol's refusal (503).

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Scope;
use std::time::Duration;

use super::protocol::ServerHalf;
use super::served::{Resource, ServedSite};
use super::transport::tcp::{self, Wire};
use super::transport::{OwnClients, ServerTls, TcpOptions};
use crate::site::resolve::{Resolver, Target};
use crate::sys;

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

/// The state a server shares with its threads; owned by the caller, outside the thread scope.
#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    /// Connections from others being served.
    others: AtomicUsize,
    /// The replay's own client's connections (always admitted).
    pub own: OwnClients,
    /// A handle on every connection being served, so that stopping ends them at once instead
    /// of waiting for an idle client's timeout.
    open: Mutex<Vec<(u64, TcpStream)>>,
    next_id: AtomicU64,
}

impl Control {
    fn track(&self, stream: &TcpStream) -> Option<u64> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let clone = stream.try_clone().ok()?;
        self.open.lock().ok()?.push((id, clone));
        Some(id)
    }

    /// Connections admitted so far, the replay's own and others (one refused for
    /// `max_connections` is not counted): what a test waits on to order connections.
    pub fn accepted_connections(&self) -> u64 {
        self.next_id.load(Ordering::SeqCst)
    }

    /// Connections being served now (each on its own thread).
    pub fn open_connections(&self) -> usize {
        self.open.lock().map(|o| o.len()).unwrap_or(0)
    }

    fn untrack(&self, id: Option<u64>) {
        if let (Some(id), Ok(mut open)) = (id, self.open.lock()) {
            open.retain(|(i, _)| *i != id);
        }
    }
}

/// A running server; [`Server::stop`] ends its accept loop.
pub struct Server<'env> {
    pub addr: SocketAddr,
    control: &'env Control,
    /// Wakes the accept loop when written to.
    waker: Arc<std::fs::File>,
}

impl Drop for Server<'_> {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Server<'_> {
    /// Binds and serves on threads of `scope` until [`Server::stop`], each connection with
    /// `half`, over TLS when `tls` is given (the handshake runs on the connection's own
    /// thread, bounded in time; a connection from others beyond `max_connections` is then
    /// closed without one).
    pub fn start<'scope, 'env>(
        scope: &'scope Scope<'scope, 'env>,
        cx: &'env ServeContext<'env>,
        control: &'env Control,
        half: &'static dyn ServerHalf,
        tls: Option<&'env ServerTls>,
    ) -> std::io::Result<Server<'env>> {
        Server::start_in(scope, cx, control, half, tls, None)
    }

    /// [`Server::start`], listening in the network namespace `netns` (an emulated link's
    /// server end) when given; the connections it accepts live there too. The socket is the
    /// server's own: it closes when the server stops.
    pub fn start_in<'scope, 'env>(
        scope: &'scope Scope<'scope, 'env>,
        cx: &'env ServeContext<'env>,
        control: &'env Control,
        half: &'static dyn ServerHalf,
        tls: Option<&'env ServerTls>,
        netns: Option<&crate::replay::link::Netns>,
    ) -> std::io::Result<Server<'env>> {
        let listener = listen(cx.opts, netns)?;
        Server::start_on(scope, cx, control, half, tls, &listener)
    }

    /// [`Server::start`] on a socket already listening ([`listen`]), which the caller holds
    /// across servers: stopping leaves it listening, so that between one server and the next
    /// no other program can take its port (`--port`).
    pub fn start_on<'scope, 'env>(
        scope: &'scope Scope<'scope, 'env>,
        cx: &'env ServeContext<'env>,
        control: &'env Control,
        half: &'static dyn ServerHalf,
        tls: Option<&'env ServerTls>,
        listener: &TcpListener,
    ) -> std::io::Result<Server<'env>> {
        let addr = listener.local_addr()?;
        // The accept loop waits for a connection or for `stop`'s wake-up, whichever first.
        let listener = listener.try_clone()?;
        listener.set_nonblocking(true)?;
        let waker = Arc::new(sys::eventfd()?);
        let woken = waker.clone();
        scope.spawn(move || {
            let mut ready = Vec::new();
            loop {
                let polled = sys::poll_readable(&[listener.as_fd(), woken.as_fd()], &mut ready);
                if polled.is_err() || control.stop.load(Ordering::SeqCst) {
                    break;
                }
                if !ready.first().copied().unwrap_or(false) {
                    continue;
                }
                // Gone between the poll and the accept (or would block): wait again.
                let Ok((stream, _)) = listener.accept() else {
                    continue;
                };
                if stream.set_nonblocking(false).is_err() {
                    continue;
                }
                admit(scope, cx, control, half, tls, stream);
            }
        });
        Ok(Server {
            addr,
            control,
            waker,
        })
    }

    /// Stops: no new connection is accepted (the accept loop is woken), and every
    /// connection still open — an idle one from elsewhere, say — is shut down. Dropping the
    /// server stops it too, so that a caller that panics inside the thread scope does not wait
    /// for the accept loop forever.
    pub fn stop(&self) {
        if self.control.stop.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wakes the accept loop; the listening socket itself is left as it is.
        let _ = (&*self.waker).write_all(&1u64.to_ne_bytes());
        if let Ok(open) = self.control.open.lock() {
            for (_, stream) in open.iter() {
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
        }
    }
}

/// A socket listening on the server's address (in the network namespace `netns` when
/// given), for [`Server::start_on`].
pub fn listen(
    opts: &ServerOptions,
    netns: Option<&crate::replay::link::Netns>,
) -> std::io::Result<TcpListener> {
    let addr = (opts.ip, opts.port).into();
    match netns {
        None => tcp::listen(addr, &opts.tcp),
        // A socket belongs to the namespace of the thread that made it.
        Some(netns) => std::thread::scope(|s| {
            s.spawn(|| {
                netns.enter().map_err(std::io::Error::other)?;
                tcp::listen(addr, &opts.tcp)
            })
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("listener thread panicked")))
        }),
    }
}

/// Admits one accepted connection: the replay's own always, others up to `max_connections`
/// (beyond, the protocol's refusal); each served on a thread of its own.
fn admit<'scope, 'env>(
    scope: &'scope Scope<'scope, 'env>,
    cx: &'env ServeContext<'env>,
    control: &'env Control,
    half: &'static dyn ServerHalf,
    tls: Option<&'env ServerTls>,
    stream: TcpStream,
) {
    let opts = cx.opts;
    let own = stream
        .peer_addr()
        .is_ok_and(|peer| control.own.contains(peer));
    if !own && control.others.fetch_add(1, Ordering::SeqCst) >= opts.max_connections {
        control.others.fetch_sub(1, Ordering::SeqCst);
        if tls.is_none() {
            half.refuse(stream);
        }
        return;
    }
    let id = control.track(&stream);
    scope.spawn(move || {
        if let Ok(wire) = Wire::new(
            stream,
            &opts.tcp,
            opts.idle_timeout,
            opts.write_timeout,
            tls,
        ) {
            half.serve(wire, cx);
        }
        control.untrack(id);
        if !own {
            control.others.fetch_sub(1, Ordering::SeqCst);
        }
    });
}
