//! The replay's server, whatever protocol it speaks: listens (or serves on a socket the
//! replay holds for all its servers, [`Server::start_on`]), accepts, admits, and hands each
//! connection to the mode's server half on a thread of its own (bounded), so a slow or hostile
//! client holds only its own thread, never the others. The replay's own client is always
//! admitted; others beyond `max_connections` get the protocol's refusal (503).

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Scope;

use super::protocol::half::ServerHalf;
pub use super::serving::{ServeContext, ServerOptions};
use super::transport::tcp::{self, Wire};
use super::transport::{OwnClients, ServerTls};
use crate::sys;

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
