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

/// The client connection preface (RFC 9113 §3.4), which precedes the first frame.
pub const PREFACE_LEN: usize = 24;

pub const DATA: u8 = 0x0;
pub const HEADERS: u8 = 0x1;
pub const SETTINGS: u8 = 0x4;
pub const PUSH_PROMISE: u8 = 0x5;
pub const CONTINUATION: u8 = 0x9;
/// The ACK flag of SETTINGS and PING.
pub const ACK: u8 = 0x1;

/// One frame as it went past: its stream, type, flags and size on the wire (with its 9-byte
/// header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub stream: u32,
    pub kind: u8,
    pub flags: u8,
    pub bytes: u64,
}

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
    /// `record` collects what goes past; the [`Hold`] holds and releases the output.
    pub fn new(stream: TcpStream, record: Arc<Mutex<Record>>) -> (Self, Hold) {
        if let Ok(mut r) = record.lock() {
            r.out_frames = FrameScan::with_preface();
        }
        let (stream, hold) = HeldIo::new(stream);
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

/// The server's socket, buffering like the study's server: while a batch of requests is
/// answered, everything the codec writes is held, and goes out in one write when the server
/// releases it ([`Hold::release`]); otherwise writes go straight through. Without it the codec
/// writes a batch's frames in pieces of its own choosing, each ending in a short segment.
pub struct HeldIo {
    stream: Arc<TcpStream>,
    held: Arc<Mutex<Held>>,
}

#[derive(Debug, Default)]
struct Held {
    on: bool,
    buf: Vec<u8>,
}

/// The server loop's handle on a [`HeldIo`].
pub struct Hold {
    stream: Arc<TcpStream>,
    held: Arc<Mutex<Held>>,
}

impl HeldIo {
    /// The socket and the handle that holds and releases its output.
    pub fn new(stream: TcpStream) -> (HeldIo, Hold) {
        let stream = Arc::new(stream);
        let held = Arc::new(Mutex::new(Held::default()));
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

    /// Writes what was held, in one write, and lets output through again.
    pub async fn release(&self) -> io::Result<()> {
        let buf = match self.held.lock() {
            Ok(mut h) => {
                h.on = false;
                std::mem::take(&mut h.buf)
            }
            Err(_) => return Err(io::Error::other("hold poisoned")),
        };
        write_all(&self.stream, &buf).await
    }
}

/// Writes all of `buf` to a shared tokio socket.
async fn write_all(stream: &TcpStream, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        stream.writable().await?;
        match stream.try_write(buf) {
            Ok(n) => buf = &buf[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl AsyncRead for HeldIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            match self.stream.try_read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::task::ready!(self.stream.poll_read_ready(cx))?;
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl HeldIo {
    /// Writes held output first; `Ready` once it is all out.
    fn poll_drain(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let mut h = match self.held.lock() {
                Ok(h) => h,
                Err(_) => return Poll::Ready(Err(io::Error::other("hold poisoned"))),
            };
            if h.on || h.buf.is_empty() {
                return Poll::Ready(Ok(()));
            }
            match self.stream.try_write(&h.buf) {
                Ok(n) => {
                    h.buf.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    drop(h);
                    std::task::ready!(self.stream.poll_write_ready(cx))?;
                }
                Err(e) => return Poll::Ready(Err(e)),
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
        if let Ok(mut h) = self.held.lock() {
            if h.on {
                h.buf.extend_from_slice(data);
                return Poll::Ready(Ok(data.len()));
            }
        }
        std::task::ready!(self.poll_drain(cx))?;
        loop {
            match self.stream.try_write(data) {
                Ok(n) => return Poll::Ready(Ok(n)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::task::ready!(self.stream.poll_write_ready(cx))?;
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_drain(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.poll_drain(cx))?;
        Poll::Ready(self.stream_shutdown())
    }
}

impl HeldIo {
    fn stream_shutdown(&self) -> io::Result<()> {
        // tokio's shutdown needs `&mut`; the socket is shared, so go to the descriptor.
        socket2::SockRef::from(&*self.stream).shutdown(std::net::Shutdown::Write)
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
