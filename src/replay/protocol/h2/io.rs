//! The client's socket as the `h2` crate sees it (tokio's `AsyncRead + AsyncWrite`), metered:
//! bytes each way are counted, and the HTTP/2 frames going past are listed (stream, type,
//! size), for the header-byte figures and the deterministic model (`super::model`).

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::replay::meter::HeaderBytes;
use crate::replay::transport::tls::Session;

pub use crate::replay::script::{
    Frame, ACK, CONTINUATION, DATA, HEADERS, PREFACE_LEN, PUSH_PROMISE, SETTINGS,
};

/// Finds the frames in one direction of a connection.
#[derive(Debug, Default)]
pub struct FrameScan {
    /// Bytes of the preface still to skip.
    skip: usize,
    /// A frame header being read (up to 9 bytes).
    head: Vec<u8>,
    /// Payload bytes of the current frame still to pass.
    payload: usize,
    pub frames: Vec<Frame>,
}

impl FrameScan {
    /// Whether the bytes so far end inside a frame (or the preface).
    pub fn mid_frame(&self) -> bool {
        self.skip > 0 || !self.head.is_empty() || self.payload > 0
    }
}

impl FrameScan {
    fn with_preface() -> Self {
        FrameScan {
            skip: PREFACE_LEN,
            ..FrameScan::default()
        }
    }

    /// Takes the next bytes of the stream.
    pub fn feed(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(data.len());
                self.skip -= n;
                data = &data[n..];
            } else if self.payload > 0 {
                let n = self.payload.min(data.len());
                self.payload -= n;
                data = &data[n..];
            } else {
                let n = (9 - self.head.len()).min(data.len());
                self.head.extend_from_slice(&data[..n]);
                data = &data[n..];
                if self.head.len() == 9 {
                    let h = &self.head;
                    let len =
                        (usize::from(h[0]) << 16) | (usize::from(h[1]) << 8) | usize::from(h[2]);
                    let stream = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
                    self.frames.push(Frame {
                        stream,
                        kind: h[3],
                        flags: h[4],
                        bytes: 9 + len as u64,
                    });
                    self.payload = len;
                    self.head.clear();
                }
            }
        }
    }

    /// Header bytes (HEADERS and CONTINUATION frames) and header blocks (HEADERS frames).
    fn header_bytes(&self) -> (u64, u64) {
        self.frames
            .iter()
            .filter(|f| matches!(f.kind, HEADERS | CONTINUATION))
            .fold((0, 0), |(bytes, blocks), f| {
                (bytes + f.bytes, blocks + u64::from(f.kind == HEADERS))
            })
    }
}

/// What the client's metered socket saw.
#[derive(Debug, Default)]
pub struct Record {
    pub written: u64,
    pub read: u64,
    pub out_frames: FrameScan,
    pub in_frames: FrameScan,
}

impl Record {
    /// Header bytes: the client's HEADERS up, the server's HEADERS down.
    pub fn headers(&self) -> HeaderBytes {
        let (up, requests) = self.out_frames.header_bytes();
        let (down, responses) = self.in_frames.header_bytes();
        HeaderBytes {
            up,
            requests,
            down,
            responses,
        }
    }
}

/// The client's metered socket; its output can be held like the server's ([`HeldIo`]), so
/// that a batch of requests goes out in one write.
pub struct MeteredIo {
    stream: HeldIo,
    record: Arc<Mutex<Record>>,
}

impl MeteredIo {
    /// `early`: what the connection read and did not use yet. `record` collects the
    /// plaintext that goes past; the [`Hold`] holds and releases the
    /// output, and at the end gives back the TLS session and what crossed the socket.
    pub fn new(
        stream: TcpStream,
        tls: Option<Session>,
        early: Vec<u8>,
        record: Arc<Mutex<Record>>,
    ) -> (Self, Hold) {
        if let Ok(mut r) = record.lock() {
            r.out_frames = FrameScan::with_preface();
        }
        let (stream, hold) = HeldIo::new(stream, tls, early);
        (MeteredIo { stream, record }, hold)
    }
}

impl AsyncRead for MeteredIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let new = &buf.filled()[before..];
            if let Ok(mut r) = self.record.lock() {
                r.read += new.len() as u64;
                r.in_frames.feed(new);
            }
        }
        polled
    }
}

impl AsyncWrite for MeteredIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, data);
        if let Poll::Ready(Ok(n)) = &polled {
            if let Ok(mut r) = self.record.lock() {
                r.written += *n as u64;
                r.out_frames.feed(&data[..*n]);
            }
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// A connection's socket as the codec sees it, buffering like the study's server: while a
/// batch of requests is answered, everything the codec writes is held, and goes out in one
/// write when the server releases it ([`Hold::release`]); otherwise writes go out as the
/// codec makes them. Without it the codec writes a batch's frames in pieces of its own
/// choosing, each ending in a short segment.
///
/// Over TLS the session lives here: what goes out is sealed per write (a held batch as one
/// plaintext, so `ceil(p / 16 KiB)` records, as the meter's framing rule says), and what comes
/// in is opened before the codec sees it.
pub struct HeldIo {
    stream: Arc<TcpStream>,
    held: Arc<Mutex<Held>>,
}

/// Bytes that crossed the socket (TCP payload: ciphertext over TLS).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WireBytes {
    pub written: u64,
    pub read: u64,
    /// Over TLS: bytes of records after the handshake that carried no data (session tickets).
    pub other: u64,
}

#[derive(Debug, Default)]
struct Held {
    on: bool,
    /// Plaintext held while `on`.
    buf: Vec<u8>,
    /// Bytes for the socket, not yet written.
    out: Vec<u8>,
    tls: Option<Session>,
    /// Plaintext opened (or handed over with the handshake) and not yet read.
    plain: Vec<u8>,
    /// Where the plaintext handed to the codec stands between frames.
    inbound: FrameScan,
    wire: WireBytes,
}

impl Held {
    /// Queues `plain` for the socket: as it is, or sealed into records.
    fn queue(&mut self, plain: &[u8], close: bool) -> io::Result<()> {
        match &mut self.tls {
            None => self.out.extend_from_slice(plain),
            Some(session) => {
                let sealed = session.seal(plain, close)?;
                self.out.extend_from_slice(&sealed);
            }
        }
        Ok(())
    }
}

/// The protocol loop's handle on a [`HeldIo`].
#[derive(Clone)]
pub struct Hold {
    stream: Arc<TcpStream>,
    held: Arc<Mutex<Held>>,
}

/// Output queued beyond this waits for the socket before more is taken.
const OUT_LIMIT: usize = 256 << 10;

fn poisoned() -> io::Error {
    io::Error::other("hold poisoned")
}

impl HeldIo {
    /// The socket and the handle that holds and releases its output. `tls`: the session of
    /// a connection whose handshake is done; `early`: plaintext that came with its end.
    pub fn new(stream: TcpStream, tls: Option<Session>, early: Vec<u8>) -> (HeldIo, Hold) {
        let stream = Arc::new(stream);
        let held = Arc::new(Mutex::new(Held {
            tls,
            plain: early,
            inbound: FrameScan::with_preface(),
            ..Held::default()
        }));
        (
            HeldIo {
                stream: stream.clone(),
                held: held.clone(),
            },
            Hold { stream, held },
        )
    }
}

impl Hold {
    /// From now on, output is held.
    pub fn hold(&self) {
        if let Ok(mut h) = self.held.lock() {
            h.on = true;
        }
    }

    /// Whether part of a frame has arrived and the rest has not: a frame the codec has begun,
    /// a TLS record not yet whole, or plaintext the codec has not read yet.
    pub fn holds_partial(&self) -> bool {
        self.held.lock().is_ok_and(|h| {
            h.inbound.mid_frame()
                || !h.plain.is_empty()
                || h.tls.as_ref().is_some_and(|s| s.holds_partial())
        })
    }

    /// Writes what was held, in one write, and lets output through again.
    pub async fn release(&self) -> io::Result<()> {
        {
            let mut h = self.held.lock().map_err(|_| poisoned())?;
            h.on = false;
            let buf = std::mem::take(&mut h.buf);
            if !buf.is_empty() {
                h.queue(&buf, false)?;
            }
        }
        std::future::poll_fn(|cx| drain(&self.stream, &self.held, cx)).await
    }

    /// The TLS session (for the client's close_notify) and the bytes that crossed the
    /// socket, once the codec is done with it.
    pub fn finish(&self) -> (Option<Session>, WireBytes) {
        match self.held.lock() {
            Ok(mut h) => (h.tls.take(), h.wire),
            Err(_) => (None, WireBytes::default()),
        }
    }
}

/// Writes queued output; `Ready` once it is all out.
fn drain(stream: &TcpStream, held: &Mutex<Held>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
    loop {
        let mut h = held.lock().map_err(|_| poisoned())?;
        if h.out.is_empty() {
            return Poll::Ready(Ok(()));
        }
        match stream.try_write(&h.out) {
            Ok(n) => {
                h.out.drain(..n);
                h.wire.written += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                drop(h);
                std::task::ready!(stream.poll_write_ready(cx))?;
            }
            Err(e) => return Poll::Ready(Err(e)),
        }
    }
}

impl AsyncRead for HeldIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut chunk = [0u8; 16 << 10];
        loop {
            let mut h = self.held.lock().map_err(|_| poisoned())?;
            if !h.plain.is_empty() {
                let n = h.plain.len().min(buf.remaining());
                buf.put_slice(&h.plain[..n]);
                let h = &mut *h;
                h.inbound.feed(&h.plain[..n]);
                h.inbound.frames.clear();
                h.plain.drain(..n);
                return Poll::Ready(Ok(()));
            }
            if h.tls.as_ref().is_some_and(|s| s.peer_closed) {
                // The peer's close_notify: the end of the stream.
                return Poll::Ready(Ok(()));
            }
            let n = match self.stream.try_read(&mut chunk) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    drop(h);
                    std::task::ready!(self.stream.poll_read_ready(cx))?;
                    continue;
                }
                Err(e) => return Poll::Ready(Err(e)),
            };
            h.wire.read += n as u64;
            if n == 0 {
                return Poll::Ready(Ok(()));
            }
            let h = &mut *h;
            match &mut h.tls {
                None => h.plain.extend_from_slice(&chunk[..n]),
                Some(session) => {
                    let opened = session.open(&chunk[..n], &mut h.plain)?;
                    h.wire.other += opened.other;
                }
            }
        }
    }
}

impl AsyncWrite for HeldIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        {
            let mut h = self.held.lock().map_err(|_| poisoned())?;
            if h.on {
                h.buf.extend_from_slice(data);
                return Poll::Ready(Ok(data.len()));
            }
            if h.out.len() < OUT_LIMIT {
                h.queue(data, false)?;
                drop(h);
                // What the socket does not take now goes on the next write or flush.
                if let Poll::Ready(Err(e)) = drain(&self.stream, &self.held, cx) {
                    return Poll::Ready(Err(e));
                }
                return Poll::Ready(Ok(data.len()));
            }
        }
        std::task::ready!(drain(&self.stream, &self.held, cx))?;
        self.poll_write(cx, data)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let on = self.held.lock().map_err(|_| poisoned())?.on;
        if on {
            return Poll::Ready(Ok(()));
        }
        drain(&self.stream, &self.held, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        {
            let mut h = self.held.lock().map_err(|_| poisoned())?;
            h.on = false;
            let buf = std::mem::take(&mut h.buf);
            if !buf.is_empty() {
                h.queue(&buf, false)?;
            }
        }
        std::task::ready!(drain(&self.stream, &self.held, cx))?;
        // tokio's shutdown needs `&mut`; the socket is shared, so go to the descriptor.
        Poll::Ready(socket2::SockRef::from(&*self.stream).shutdown(std::net::Shutdown::Write))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, len: usize) -> Vec<u8> {
        let mut f = vec![
            (len >> 16) as u8,
            (len >> 8) as u8,
            len as u8,
            kind,
            0,
            0,
            0,
            0,
            1,
        ];
        f.extend(std::iter::repeat_n(0xAA, len));
        f
    }

    #[test]
    fn header_blocks_are_found_across_arbitrary_splits() {
        let mut stream = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        stream.extend(frame(0x4, 6)); // SETTINGS
        stream.extend(frame(HEADERS, 40));
        stream.extend(frame(CONTINUATION, 10));
        stream.extend(frame(0x0, 300)); // DATA
        stream.extend(frame(HEADERS, 7));
        for split in [1, 2, 5, 9, 13, 64, stream.len()] {
            let mut scan = FrameScan::with_preface();
            for chunk in stream.chunks(split) {
                scan.feed(chunk);
            }
            assert_eq!(scan.frames.len(), 5, "split {split}");
            assert_eq!(scan.header_bytes(), (49 + 19 + 16, 2), "split {split}");
            assert_eq!(scan.frames[3].bytes, 309);
        }
    }
}
