//! TCP for the replay: sockets set up as the 1997 study's were (Nagle off, delayed ACKs from
//! the first segment, an Ethernet MSS), the client's metered connection, and the server's
//! admission rule. Either end may carry a TLS session ([`super::tls`]): the protocol above
//! still reads and writes its own bytes, while the meter counts what crossed the socket —
//! ciphertext, records and handshake included — and each write of the protocol is still one
//! write on the socket.
//!
//! Admission: the server takes at most `max_connections` connections from others and answers
//! the rest 503, but it never refuses the replay's own client. Every socket the client opens
//! is bound first and its port registered in [`OwnClients`], which the server's accept loop
//! consults, so other local programs holding connections (`--no-netns --port`) cannot make
//! the replay fail.

use std::collections::BTreeSet;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, Socket, Type};

use super::tls::{self, ServerTls, Session, TlsClient};
use crate::replay::meter::{Counters, Framing, Handshake, Meter, Model};
use crate::sim::simulate::Congestion;
use crate::sys;

/// Socket options shared by both ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TcpOptions {
    /// Leave Nagle's algorithm on. Default: `false` (TCP_NODELAY, as in the study).
    pub nagle: bool,
    /// Delayed ACKs from the first segment on (`TCP_QUICKACK` off), as 1997 stacks did; Linux
    /// otherwise starts each connection ACKing every segment at once. Default: `true`.
    pub delayed_acks: bool,
    /// `TCP_MAXSEG` before connecting or listening. Default: none.
    pub tcp_maxseg: Option<u32>,
    /// The congestion control both ends use (`TCP_CONGESTION` on every socket), so that the
    /// machine's default (BBR here, inherited by new namespaces) never decides, and the
    /// simulator models the same one. Default: none (the system's); the replay sets CUBIC, or
    /// Reno on the 1997 links.
    #[serde(default)]
    pub congestion: Option<Congestion>,
}

impl Default for TcpOptions {
    fn default() -> Self {
        TcpOptions {
            nagle: false,
            delayed_acks: true,
            tcp_maxseg: None,
            congestion: None,
        }
    }
}

/// Sets `TCP_CONGESTION` as `tcp` asks, saying which algorithm could not be set.
fn set_congestion(socket: socket2::SockRef<'_>, tcp: &TcpOptions) -> std::io::Result<()> {
    let Some(c) = tcp.congestion else {
        return Ok(());
    };
    socket
        .set_tcp_congestion(c.as_str().as_bytes())
        .map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!(
                    "TCP_CONGESTION {}: {e} (is the tcp_{} module loaded?)",
                    c.as_str(),
                    c.as_str()
                ),
            )
        })
}

/// The local ports of the replay client's own connections.
#[derive(Debug, Default)]
pub struct OwnClients {
    ports: Mutex<BTreeSet<u16>>,
}

impl OwnClients {
    fn add(&self, port: u16) {
        if let Ok(mut ports) = self.ports.lock() {
            ports.insert(port);
        }
    }

    fn remove(&self, port: u16) {
        if let Ok(mut ports) = self.ports.lock() {
            ports.remove(&port);
        }
    }

    /// Whether a connection from `peer` is the replay's own.
    pub fn contains(&self, peer: SocketAddr) -> bool {
        self.ports
            .lock()
            .map(|ports| ports.contains(&peer.port()))
            .unwrap_or(false)
    }
}

/// Opens the client's connections to one server.
#[derive(Debug)]
pub struct Connector<'a> {
    pub addr: SocketAddr,
    pub tcp: TcpOptions,
    /// How long a read or write may wait.
    pub timeout: Duration,
    /// What the meter's model assumes.
    pub model: Model,
    pub own: &'a OwnClients,
    /// TLS on every connection (the HTTPS modes), or none.
    pub tls: Option<&'a TlsClient>,
    /// When the visit's packets began and ended, and whether a wait timed out.
    pub visit: VisitLog,
    /// What the visit's connections wrote and read, for the simulator: each connection's
    /// script as it finishes.
    pub recorder: crate::replay::script::Recorder,
}

/// What the connector saw of the current visit, whatever the protocol: its first SYN, the
/// last moment before a client FIN (so the last packet that counts under the paper's rule, as
/// the client sees it), and whether a read or write gave up waiting.
#[derive(Debug, Default)]
pub struct VisitLog(Mutex<VisitMarks>);

/// The marks of one visit ([`VisitLog`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct VisitMarks {
    /// The first `connect` of the visit: its SYN.
    pub first_syn: Option<Instant>,
    /// The latest end of a connection, just before the client's FIN.
    pub last_counted: Option<Instant>,
    /// A read or write waited longer than the connector's timeout.
    pub timed_out: bool,
}

impl VisitLog {
    fn update(&self, f: impl FnOnce(&mut VisitMarks)) {
        if let Ok(mut marks) = self.0.lock() {
            f(&mut marks);
        }
    }

    /// A new visit starts: every mark is cleared.
    pub fn reset(&self) {
        self.update(|m| *m = VisitMarks::default());
    }

    fn syn(&self) {
        self.update(|m| {
            m.first_syn.get_or_insert_with(Instant::now);
        });
    }

    fn counted(&self) {
        self.update(|m| m.last_counted = Some(Instant::now()));
    }

    /// A wait of the visit gave up (a protocol with its own deadline says so here).
    pub fn timed_out(&self) {
        self.update(|m| m.timed_out = true);
    }

    pub fn marks(&self) -> VisitMarks {
        self.0.lock().map(|m| *m).unwrap_or_default()
    }
}

/// Whether an I/O error is a socket timeout (`SO_RCVTIMEO` / `SO_SNDTIMEO` expired).
pub fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

impl Connector<'_> {
    /// A new metered connection.
    pub fn connect(&self) -> std::io::Result<Conn<'_>> {
        self.open(None)
    }

    /// A new metered connection, the `seq`-th in the robot's queue of a visit whose
    /// connections open in parallel: over TLS the first in the queue makes the full
    /// handshake ([`super::tls::TlsClient::session`]).
    pub fn connect_queued(&self, seq: u64) -> std::io::Result<Conn<'_>> {
        self.open(Some(seq))
    }

    fn open(&self, queued: Option<u64>) -> std::io::Result<Conn<'_>> {
        let socket = Socket::new(
            Domain::for_address(self.addr),
            Type::STREAM,
            Some(Protocol::TCP),
        )?;
        if let Some(mss) = self.tcp.tcp_maxseg {
            socket.set_tcp_mss(mss)?;
        }
        socket.set_tcp_nodelay(!self.tcp.nagle)?;
        set_congestion(socket2::SockRef::from(&socket), &self.tcp)?;
        let any: SocketAddr = match self.addr {
            SocketAddr::V4(_) => ([0, 0, 0, 0], 0).into(),
            SocketAddr::V6(_) => (std::net::Ipv6Addr::UNSPECIFIED, 0).into(),
        };
        socket.bind(&any.into())?;
        let port = socket
            .local_addr()?
            .as_socket()
            .map(|a| a.port())
            .unwrap_or(0);
        self.own.add(port);
        self.visit.syn();
        let started = Instant::now();
        // Bounded like every other wait: over a lossy link a SYN may be lost again and again.
        if let Err(e) = socket.connect_timeout(&self.addr.into(), self.timeout) {
            self.own.remove(port);
            if is_timeout(&e) {
                self.visit.timed_out();
            }
            return Err(e);
        }
        let connected = (|| {
            if self.tcp.delayed_acks {
                socket.set_tcp_quickack(false)?;
            }
            let mut stream: TcpStream = socket.into();
            stream.set_read_timeout(Some(self.timeout))?;
            stream.set_write_timeout(Some(self.timeout))?;
            let mut meter = Meter::default();
            let tls = match self.tls {
                None => None,
                Some(client) => {
                    let mut session = client.session(self.timeout, queued)?;
                    let mut record = Handshake::default();
                    let mut read = 0;
                    let early =
                        tls::client_handshake(&mut stream, &mut session, &mut record, &mut read)?;
                    meter.bytes_up += record
                        .flights
                        .iter()
                        .map(|f| match f {
                            crate::replay::meter::Flight::Up(b) => *b,
                            crate::replay::meter::Flight::Down(_) => 0,
                        })
                        .sum::<u64>();
                    meter.read(read);
                    meter.tls = Some(record);
                    Some((session, early))
                }
            };
            meter.connect = started.elapsed();
            Ok((stream, meter, tls))
        })();
        let (stream, meter, tls) = match connected {
            Ok(c) => c,
            Err(e) => {
                self.own.remove(port);
                return Err(e);
            }
        };
        let (tls, input) = match tls {
            Some((session, early)) => (Some(session), early),
            None => (None, Vec::new()),
        };
        Ok(Conn {
            stream,
            tls,
            input,
            meter,
            eof: false,
            read_at: None,
            port,
            started,
            connector: self,
        })
    }

    /// A new visit: TLS sessions from earlier visits are forgotten (no-op over TCP); with
    /// [`TlsClient::warm`], one uncounted connection then leaves a session to resume.
    pub fn new_visit(&self) -> std::io::Result<()> {
        let Some(tls) = self.tls else {
            self.visit.reset();
            self.recorder.take();
            return Ok(());
        };
        tls.new_visit();
        if tls.warm {
            let mut conn = self.connect()?;
            // TLS 1.2 has its session when the handshake ends; 1.3's tickets follow it.
            while !tls.has_session() {
                if !conn.fill()? {
                    break;
                }
            }
            conn.finish();
        }
        // The warming connection is not part of the visit.
        self.visit.reset();
        self.recorder.take();
        Ok(())
    }
}

/// One client connection: its socket, what has been read and not yet used, and its meter.
pub struct Conn<'a> {
    stream: TcpStream,
    tls: Option<Session>,
    /// Bytes read and not yet consumed by the protocol.
    pub input: Vec<u8>,
    pub meter: Meter,
    /// The server's FIN arrived.
    pub eof: bool,
    /// When the last read returned bytes: when what is in `input` arrived.
    pub read_at: Option<Instant>,
    port: u16,
    /// When `connect` was called: the first SYN.
    pub started: Instant,
    connector: &'a Connector<'a>,
}

impl Conn<'_> {
    /// Writes `bytes` in one call on the socket; `all_sent` when nothing more is waiting to
    /// go out.
    pub fn write(&mut self, bytes: &[u8], all_sent: bool) -> std::io::Result<()> {
        let wire = match &mut self.tls {
            None => {
                self.stream.write_all(bytes).map_err(|e| self.noted(e))?;
                bytes.len()
            }
            Some(session) => {
                let sealed = session.seal(bytes, false)?;
                self.stream.write_all(&sealed).map_err(|e| self.noted(e))?;
                sealed.len()
            }
        };
        self.meter.wrote(bytes.len() as u64, wire as u64, all_sent);
        Ok(())
    }

    /// Writes `bytes` as an output buffer of `chunk` bytes does: one socket write per chunk,
    /// back to back (over TLS every chunk is sealed before the first goes out, so that
    /// encryption does not put gaps between the writes).
    pub fn write_chunked(&mut self, bytes: &[u8], chunk: usize) -> std::io::Result<()> {
        let chunk = chunk.max(1);
        let pieces = bytes.len().div_ceil(chunk);
        let sealed: Vec<std::borrow::Cow<'_, [u8]>> = match &mut self.tls {
            None => bytes
                .chunks(chunk)
                .map(std::borrow::Cow::Borrowed)
                .collect(),
            Some(session) => bytes
                .chunks(chunk)
                .map(|piece| session.seal(piece, false).map(std::borrow::Cow::Owned))
                .collect::<std::io::Result<_>>()?,
        };
        for (i, (piece, wire)) in bytes.chunks(chunk).zip(&sealed).enumerate() {
            if let Err(e) = self.stream.write_all(wire) {
                return Err(self.noted(e));
            }
            self.meter
                .wrote(piece.len() as u64, wire.len() as u64, i + 1 == pieces);
        }
        Ok(())
    }

    /// How many bytes of the protocol's one write fill `wire` bytes on the socket (all of
    /// them over TCP; less the record overhead over TLS).
    pub fn payload_fitting(&self, wire: usize) -> usize {
        let framing = self.connector.tls.map_or(Framing::NONE, |t| t.framing);
        framing.fitting(wire as u64) as usize
    }

    /// Reads what has arrived into `input`; false at the end of the stream.
    pub fn fill(&mut self) -> std::io::Result<bool> {
        let mut chunk = [0u8; 32 << 10];
        let n = self.stream.read(&mut chunk).map_err(|e| self.noted(e))?;
        self.meter.read(n as u64);
        if n == 0 {
            self.eof = true;
        } else {
            self.read_at = Some(Instant::now());
        }
        match &mut self.tls {
            None => self.input.extend_from_slice(&chunk[..n]),
            Some(session) => {
                let opened = session.open(&chunk[..n], &mut self.input)?;
                if let Some(h) = &mut self.meter.tls {
                    h.tickets += opened.other;
                }
            }
        }
        Ok(n > 0)
    }

    /// Notes a timeout in the visit's log; returns the error.
    fn noted(&self, e: std::io::Error) -> std::io::Error {
        if is_timeout(&e) {
            self.connector.visit.timed_out();
        }
        e
    }

    /// A second handle on the socket, the TLS session if there is one and what was read and
    /// not yet used (over TLS 1.2, what the server sent with its Finished), for a protocol
    /// driven by an async runtime (HTTP/2): it reads and writes through that handle, tells
    /// the meter what it did, and gives the session back ([`Conn::restore_tls`]) so that
    /// [`Conn::finish`] can close it.
    pub fn async_parts(&mut self) -> std::io::Result<(TcpStream, Option<Session>, Vec<u8>)> {
        let stream = self.stream.try_clone()?;
        Ok((stream, self.tls.take(), std::mem::take(&mut self.input)))
    }

    /// Gives back the session [`Conn::async_parts`] took.
    pub fn restore_tls(&mut self, session: Option<Session>) {
        self.tls = session;
    }

    /// Reads the kernel's counters and closes: over TLS the client's close_notify first
    /// (which counts), then the client's FIN (which does not).
    pub fn finish(mut self) -> Counters {
        if let Some(session) = &mut self.tls {
            if let Ok(alert) = session.seal(&[], true) {
                if self.stream.write_all(&alert).is_ok() {
                    self.meter.bytes_up += alert.len() as u64;
                    if let Some(h) = &mut self.meter.tls {
                        h.close_notify = true;
                    }
                }
            }
        }
        // The server answers a close_notify only after the client's FIN (see `Wire`), so
        // nothing of its answer can be in these counters.
        let info = sys::tcp_info(&self.stream).unwrap_or_default();
        self.connector.visit.counted();
        let _ = self.stream.shutdown(Shutdown::Both);
        let counters = self.meter.finish(info, self.connector.model, self.eof);
        self.connector.own.remove(self.port);
        let script = match self.meter.h2.take() {
            Some(mut h2) => {
                h2.tls = self.meter.tls.clone();
                crate::replay::script::Script::H2(h2)
            }
            None => {
                let mut script = std::mem::take(&mut self.meter.script);
                script.tls = self.meter.tls.clone();
                crate::replay::script::Script::Http1(script)
            }
        };
        self.connector.recorder.add(script);
        counters
    }
}

/// A listening socket with the replay's options.
pub fn listen(addr: SocketAddr, tcp: &TcpOptions) -> std::io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    if let Some(mss) = tcp.tcp_maxseg {
        socket.set_tcp_mss(mss)?;
    }
    set_congestion(socket2::SockRef::from(&socket), tcp)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    Ok(socket.into())
}

/// The server's side of one connection, as a protocol's server half uses it.
pub struct Wire {
    stream: TcpStream,
    idle: Duration,
    tls: Option<Session>,
    /// Plaintext that arrived with the end of the TLS handshake, not yet handed over.
    early: Vec<u8>,
}

impl Wire {
    /// Sets up an accepted connection: the study's options, `idle` as the read timeout and
    /// `write_timeout` for a client that does not read; with `tls`, the server's handshake
    /// (bounded in time; a client that fails it is dropped after rustls's alert, if any).
    pub fn new(
        mut stream: TcpStream,
        tcp: &TcpOptions,
        idle: Duration,
        write_timeout: Duration,
        tls: Option<&ServerTls>,
    ) -> std::io::Result<Self> {
        stream.set_nodelay(!tcp.nagle)?;
        set_congestion(socket2::SockRef::from(&stream), tcp)?;
        if tcp.delayed_acks {
            socket2::SockRef::from(&stream).set_tcp_quickack(false)?;
        }
        stream.set_write_timeout(Some(write_timeout))?;
        let (session, early) = match tls {
            None => (None, Vec::new()),
            Some(t) => {
                let mut session = tls::server_session(&t.config)?;
                let early = tls::server_handshake(&mut stream, &mut session, t.handshake_timeout)?;
                (Some(session), early)
            }
        };
        stream.set_read_timeout(Some(idle))?;
        Ok(Wire {
            stream,
            idle,
            tls: session,
            early,
        })
    }

    /// Whether part of a message has arrived that the transport cannot hand over yet (the
    /// rest of a TLS record is on its way).
    pub fn holds_partial(&self) -> bool {
        self.tls.as_ref().is_some_and(|s| s.holds_partial())
    }

    /// Reads whatever is already waiting, without blocking. True when something was read.
    pub fn read_waiting(&mut self, into: &mut Vec<u8>) -> std::io::Result<bool> {
        self.stream.set_nonblocking(true)?;
        let got = self.read_into(into);
        self.stream.set_nonblocking(false)?;
        got
    }

    /// Waits up to `wait` for more input; true when something was read.
    pub fn read_within(&mut self, into: &mut Vec<u8>, wait: Duration) -> std::io::Result<bool> {
        self.stream
            .set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
        let got = self.read_into(into);
        self.stream.set_read_timeout(Some(self.idle))?;
        got
    }

    /// Blocks for more input; false on end of stream or idle timeout.
    pub fn read_blocking(&mut self, into: &mut Vec<u8>) -> std::io::Result<bool> {
        self.read_into(into)
    }

    /// Reads from the socket; true when something arrived (over TLS: plaintext, or part of a
    /// record, see [`Wire::holds_partial`]). False at the end of the stream, the peer's
    /// close_notify, or a timeout.
    fn read_into(&mut self, into: &mut Vec<u8>) -> std::io::Result<bool> {
        if !self.early.is_empty() {
            into.append(&mut self.early);
            return Ok(true);
        }
        let mut chunk = [0u8; 16 << 10];
        let n = match self.stream.read(&mut chunk) {
            Ok(0) => return Ok(false),
            Ok(n) => n,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Ok(false)
            }
            Err(e) => return Err(e),
        };
        match &mut self.tls {
            None => {
                into.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
            Some(session) => {
                let opened = session.open(&chunk[..n], into)?;
                if opened.plain == 0 && session.peer_closed {
                    // The client's close_notify: its FIN follows at once. Only then does the
                    // server answer (close_notify and FIN), as on any real link, where the
                    // answer could not arrive before the client's FIN.
                    let mut sink = [0u8; 4096];
                    while matches!(self.stream.read(&mut sink), Ok(n) if n > 0) {}
                    return Ok(false);
                }
                Ok(true)
            }
        }
    }

    /// The socket, its TLS session if any, and plaintext that arrived with the end of the
    /// handshake, for a protocol driven by an async runtime (HTTP/2).
    pub fn into_parts(self) -> (TcpStream, Option<Session>, Vec<u8>) {
        (self.stream, self.tls, self.early)
    }

    /// Writes all of `bytes` (one buffer: one burst of segments).
    pub fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match &mut self.tls {
            None => self.stream.write_all(bytes),
            Some(session) => {
                let sealed = session.seal(bytes, false)?;
                self.stream.write_all(&sealed)
            }
        }
    }

    /// Writes `last` and closes, in one write (over TLS the close_notify goes with it).
    pub fn close_with(mut self, last: &[u8], linger: Duration) -> std::io::Result<()> {
        match &mut self.tls {
            None if last.is_empty() => {}
            None => self.stream.write_all(last)?,
            Some(session) => {
                let sealed = session.seal(last, true)?;
                self.stream.write_all(&sealed)?;
            }
        }
        self.close(linger)
    }

    /// Sends the server's FIN, then drains until the client closes too (at most `linger`), so
    /// that unread requests do not turn the FIN into a reset that destroys unread responses.
    fn close(mut self, linger: Duration) -> std::io::Result<()> {
        let _ = self.stream.shutdown(Shutdown::Write);
        let deadline = Instant::now() + linger;
        self.stream.set_read_timeout(Some(linger))?;
        let mut sink = [0u8; 4096];
        while Instant::now() < deadline && matches!(self.stream.read(&mut sink), Ok(n) if n > 0) {}
        Ok(())
    }
}
