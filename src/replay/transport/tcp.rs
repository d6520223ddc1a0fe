//! TCP for the replay: sockets set up as the 1997 study's were (Nagle off, delayed ACKs from
//! the first segment, an Ethernet MSS), the client's metered connection, and the server's
//! admission rule.
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

use crate::replay::meter::{Counters, Meter, Model};
use crate::replay::sys;

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
}

impl Default for TcpOptions {
    fn default() -> Self {
        TcpOptions {
            nagle: false,
            delayed_acks: true,
            tcp_maxseg: None,
        }
    }
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
}

impl Connector<'_> {
    /// A new metered connection.
    pub fn connect(&self) -> std::io::Result<Conn<'_>> {
        let socket = Socket::new(
            Domain::for_address(self.addr),
            Type::STREAM,
            Some(Protocol::TCP),
        )?;
        if let Some(mss) = self.tcp.tcp_maxseg {
            socket.set_tcp_mss(mss)?;
        }
        socket.set_tcp_nodelay(!self.tcp.nagle)?;
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
        let started = Instant::now();
        if let Err(e) = socket.connect(&self.addr.into()) {
            self.own.remove(port);
            return Err(e);
        }
        if self.tcp.delayed_acks {
            socket.set_tcp_quickack(false)?;
        }
        let stream: TcpStream = socket.into();
        stream.set_read_timeout(Some(self.timeout))?;
        stream.set_write_timeout(Some(self.timeout))?;
        Ok(Conn {
            stream,
            input: Vec::new(),
            meter: Meter::default(),
            eof: false,
            port,
            started,
            connector: self,
        })
    }
}

/// One client connection: its socket, what has been read and not yet used, and its meter.
pub struct Conn<'a> {
    stream: TcpStream,
    /// Bytes read and not yet consumed by the protocol.
    pub input: Vec<u8>,
    pub meter: Meter,
    /// The server's FIN arrived.
    pub eof: bool,
    port: u16,
    /// When `connect` was called: the first SYN.
    pub started: Instant,
    connector: &'a Connector<'a>,
}

impl Conn<'_> {
    /// Writes `bytes` in one call; `all_sent` when nothing more is waiting to go out.
    pub fn write(&mut self, bytes: &[u8], all_sent: bool) -> std::io::Result<()> {
        self.stream.write_all(bytes)?;
        self.meter.wrote(bytes.len() as u64, all_sent);
        Ok(())
    }

    /// Reads what has arrived into `input`; false at the end of the stream.
    pub fn fill(&mut self) -> std::io::Result<bool> {
        let mut chunk = [0u8; 32 << 10];
        let n = self.stream.read(&mut chunk)?;
        self.meter.read(n as u64);
        self.input.extend_from_slice(&chunk[..n]);
        if n == 0 {
            self.eof = true;
        }
        Ok(n > 0)
    }

    /// A second handle on the socket, for a protocol driven by an async runtime (HTTP/2): it
    /// reads and writes through that handle and tells the meter what it did.
    pub fn stream_handle(&self) -> std::io::Result<TcpStream> {
        self.stream.try_clone()
    }

    /// Reads the kernel's counters and closes (the client's FIN, which does not count).
    pub fn finish(self) -> Counters {
        let info = sys::tcp_info(&self.stream).unwrap_or_default();
        let counters = self.meter.finish(info, self.connector.model, self.eof);
        let _ = self.stream.shutdown(Shutdown::Both);
        self.connector.own.remove(self.port);
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
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    Ok(socket.into())
}

/// The server's side of one connection, as a protocol's server half uses it.
pub struct Wire {
    stream: TcpStream,
    idle: Duration,
}

impl Wire {
    /// Sets up an accepted connection: the study's options, `idle` as the read timeout and
    /// `write_timeout` for a client that does not read.
    pub fn new(
        stream: TcpStream,
        tcp: &TcpOptions,
        idle: Duration,
        write_timeout: Duration,
    ) -> std::io::Result<Self> {
        stream.set_nodelay(!tcp.nagle)?;
        if tcp.delayed_acks {
            socket2::SockRef::from(&stream).set_tcp_quickack(false)?;
        }
        stream.set_read_timeout(Some(idle))?;
        stream.set_write_timeout(Some(write_timeout))?;
        Ok(Wire { stream, idle })
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

    fn read_into(&mut self, into: &mut Vec<u8>) -> std::io::Result<bool> {
        let mut chunk = [0u8; 16 << 10];
        match self.stream.read(&mut chunk) {
            Ok(0) => Ok(false),
            Ok(n) => {
                into.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The socket, for a protocol driven by an async runtime (HTTP/2).
    pub fn into_stream(self) -> TcpStream {
        self.stream
    }

    /// Writes all of `bytes` (one buffer: one burst of segments).
    pub fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// Sends the server's FIN, then drains until the client closes too (at most `linger`), so
    /// that unread requests do not turn the FIN into a reset that destroys unread responses.
    pub fn close(mut self, linger: Duration) -> std::io::Result<()> {
        let _ = self.stream.shutdown(Shutdown::Write);
        let deadline = Instant::now() + linger;
        self.stream.set_read_timeout(Some(linger))?;
        let mut sink = [0u8; 4096];
        while Instant::now() < deadline && matches!(self.stream.read(&mut sink), Ok(n) if n > 0) {}
        Ok(())
    }
}
