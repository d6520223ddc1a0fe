//! `replay --capture FILE`: tcpdump records the replay, and webdiet writes the file. tcpdump
//! writes pcap to a pipe (`-w -`), never to a path of its own: run as root it would open the
//! path before dropping to the `tcpdump` user and chown it, whatever the path was (a page of
//! the site, a user's file, `/dev/null`). webdiet copies the packets into a staging name beside
//! FILE, checking every write, and renames it to FILE only when tcpdump has finished; on a
//! failure FILE is as it was.
//!
//! The file is pcapng rather than tcpdump's pcap so that it can say who wrote it: its section
//! header's `shb_userappl` option is `webdiet …` ([`is_ours`]). The output rules
//! ([`crate::output::check_named_file`]) replace an existing FILE only when it says so.
//!
//! The capture ends on a marker, not on a timer: tcpdump stopped by a signal forgets the packets
//! the kernel holds for it and it has not read yet, so a capture stopped "300 ms after the
//! replay" lost its last packets whenever tcpdump was starved of CPU that long (a CI run saw a
//! connection's last ACK and close_notify missing). [`Capture::finish`] sends one SYN to the
//! discard port, where nothing listens in the replay's private namespaces, and stops tcpdump
//! only once that SYN has come through the pipe: the kernel hands tcpdump its packets in order,
//! so everything before it has been read. Marker packets are not written to the file, and a
//! capture in which tcpdump reports dropped packets is an error, never a short file.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::error::{Error, Result};

/// What the section header's `shb_userappl` begins with in a capture webdiet wrote.
const WRITER: &str = "webdiet";
/// pcapng block types and option codes (draft-ietf-opsawg-pcapng).
const SECTION_HEADER: u32 = 0x0A0D_0D0A;
const INTERFACE_DESCRIPTION: u32 = 1;
const ENHANCED_PACKET: u32 = 6;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
const OPT_ENDOFOPT: u16 = 0;
const SHB_USERAPPL: u16 = 4;
/// A captured packet longer than this is not a packet (tcpdump runs with `-s 128`).
const MAX_PACKET: usize = 1 << 18;
/// The end-of-capture marker goes to this port (discard), where nothing listens in the
/// replay's namespaces: its SYN is answered by a reset, and neither is written to the file.
const MARKER_PORT: u16 = 9;
/// How long [`Capture::finish`] waits for its marker to come through tcpdump.
const MARKER_PATIENCE: Duration = Duration::from_secs(20);
/// How long packets of the replay may still be on their way when it ends (an emulated link's
/// last segments, the server's FIN): the marker is sent after this.
const SETTLE: Duration = Duration::from_millis(300);

/// Whether `path` is a capture webdiet wrote: a pcapng file whose first section header names
/// webdiet as the application that wrote it.
pub fn is_ours(path: &Path) -> bool {
    let mut head = Vec::new();
    let read = File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    read.is_ok() && section_writer(&head).is_some_and(|app| app.starts_with(WRITER))
}

/// The `shb_userappl` of the section header at the start of `bytes` (little-endian, as
/// webdiet writes it).
fn section_writer(bytes: &[u8]) -> Option<String> {
    let word = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    if word(0)? != SECTION_HEADER || word(8)? != BYTE_ORDER_MAGIC {
        return None;
    }
    let end = (word(4)? as usize).checked_sub(4)?.min(bytes.len());
    let mut at = 24;
    while at + 4 <= end {
        let code = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let len = usize::from(u16::from_le_bytes([bytes[at + 2], bytes[at + 3]]));
        let value = bytes.get(at + 4..at + 4 + len)?;
        match code {
            OPT_ENDOFOPT => return None,
            SHB_USERAPPL => return Some(String::from_utf8_lossy(value).into_owned()),
            _ => at += 4 + len.next_multiple_of(4),
        }
    }
    None
}

/// tcpdump on one device (`lo`, or an emulated link's `wd-client`) for as long as it lives
/// (`--immediate-mode`, or the tail is lost), its packets going into a staging file that
/// [`Capture::finish`] renames into place.
pub struct Capture {
    child: Child,
    /// Kept open until tcpdump has exited, so its closing statistics do not hit a closed pipe.
    stderr: Option<BufReader<ChildStderr>>,
    copier: Option<JoinHandle<io::Result<()>>>,
    /// Told by the copier when the end-of-capture marker has come through.
    marker_seen: Receiver<()>,
    /// Where the marker is sent: an address across `device` (the peer on an emulated link,
    /// 127.0.0.1 on `lo`).
    marker_to: Ipv4Addr,
    staging: PathBuf,
    file: PathBuf,
}

impl Capture {
    /// Starts tcpdump on `device` in the calling thread's network namespace, its packets
    /// bound for `file`, and returns once it listens. `file` has passed the output rules.
    /// `marker_to` is an address whose packets leave through `device`, with nothing listening
    /// on its discard port.
    pub fn start(file: &Path, device: &str, marker_to: Ipv4Addr) -> Result<Self> {
        let parent = match file.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(dir) => dir.to_path_buf(),
            None => PathBuf::from("."),
        };
        crate::output::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let staging = crate::output::staging_name(file);
        let out = File::create_new(&staging).map_err(|e| Error::io(&staging, e))?;
        let spawned = Command::new("tcpdump")
            .args(["-i", device, "-n", "-s", "128", "--immediate-mode", "-U"])
            .args(["-w", "-", "tcp"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                let _ = std::fs::remove_file(&staging);
                return Err(Error::Invalid {
                    path: file.to_path_buf(),
                    message: format!("cannot run tcpdump for --capture: {e}"),
                });
            }
        };
        let pcap = child.stdout.take().expect("piped stdout");
        let (seen, marker_seen) = mpsc::channel();
        let copier = std::thread::spawn(move || copy_as_pcapng(pcap, out, Some(seen)));
        let mut capture = Capture {
            stderr: child.stderr.take().map(BufReader::new),
            child,
            copier: Some(copier),
            marker_seen,
            marker_to,
            staging,
            file: file.to_path_buf(),
        };
        // tcpdump says "listening on lo" once it has opened the interface: only then may the
        // first packet be sent.
        let mut said = String::new();
        if let Some(reader) = capture.stderr.as_mut() {
            let mut line = String::new();
            while reader.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                if line.contains("listening on") {
                    return Ok(capture);
                }
                said.push_str(&line);
                line.clear();
            }
        }
        Err(Error::Invalid {
            path: file.to_path_buf(),
            message: format!("tcpdump did not start capturing: {}", said.trim()),
        })
    }

    /// Stops tcpdump once the last packets have reached it (its marker has come through),
    /// completes the file and moves it into place. Must run in the namespace `start` ran in.
    pub fn finish(mut self) -> Result<()> {
        std::thread::sleep(SETTLE);
        let marker = SocketAddrV4::new(self.marker_to, MARKER_PORT);
        // The answer is a reset (or nothing, over a link that lost it): only the SYN matters.
        let _ = TcpStream::connect_timeout(&marker.into(), Duration::from_millis(500));
        let arrived = self.marker_seen.recv_timeout(MARKER_PATIENCE).is_ok();
        let said = self.stop();
        let copied = match self.copier.take().map(JoinHandle::join) {
            Some(Ok(result)) => result.map_err(|e| Error::io(&self.staging, e)),
            _ => Err(Error::Invalid {
                path: self.staging.clone(),
                message: "the capture's writer failed".into(),
            }),
        };
        copied?;
        let incomplete = |why: String| Error::Invalid {
            path: self.file.clone(),
            message: format!("the capture is incomplete, not written: {why}"),
        };
        if !arrived {
            return Err(incomplete(format!(
                "tcpdump did not pass on the end-of-capture marker within {} s",
                MARKER_PATIENCE.as_secs()
            )));
        }
        if let Some(dropped) = dropped_by_kernel(&said).filter(|&n| n > 0) {
            return Err(incomplete(format!(
                "tcpdump says {dropped} packets were dropped by the kernel"
            )));
        }
        std::fs::rename(&self.staging, &self.file).map_err(|e| Error::io(&self.file, e))
    }

    /// Interrupts tcpdump (our own child, by its id), waits for it and returns what it said
    /// on the way out (its packet statistics).
    fn stop(&mut self) -> String {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let mut said = String::new();
        if let Some(mut reader) = self.stderr.take() {
            let _ = reader.read_to_string(&mut said);
        }
        let _ = self.child.wait();
        said
    }
}

/// The count in tcpdump's closing "N packets dropped by kernel", if it said one.
fn dropped_by_kernel(said: &str) -> Option<u64> {
    said.lines()
        .find_map(|line| line.trim().strip_suffix("packets dropped by kernel"))
        .and_then(|n| n.trim().parse().ok())
}

impl Drop for Capture {
    /// Unfinished (the replay failed): tcpdump stops and the staging file goes.
    fn drop(&mut self) {
        if let Some(copier) = self.copier.take() {
            self.stop();
            let _ = copier.join();
        }
        let _ = std::fs::remove_file(&self.staging);
    }
}

/// Reads tcpdump's pcap stream and writes it to `out` as pcapng: a section header naming
/// webdiet, one interface, one enhanced packet block per packet. Every write is checked, and
/// the file is synced before it counts as written. Packets to or from the marker port are
/// left out; the first tells `marker`.
fn copy_as_pcapng(pcap: impl Read, out: File, mut marker: Option<Sender<()>>) -> io::Result<()> {
    let mut input = BufReader::new(pcap);
    let mut header = [0u8; 24];
    let mut output = BufWriter::new(out);
    output.write_all(&section_header())?;
    if !read_full(&mut input, &mut header)? {
        // tcpdump stopped before writing anything: an empty section.
        return finish_file(output);
    }
    let magic = u32::from_le_bytes(header[0..4].try_into().unwrap());
    let (little, nanos) = match magic {
        0xA1B2_C3D4 => (true, false),
        0xA1B2_3C4D => (true, true),
        0xD4C3_B2A1 => (false, false),
        0x4D3C_B2A1 => (false, true),
        _ => return Err(io::Error::other("tcpdump's output is not pcap")),
    };
    let word = |b: &[u8]| {
        let b: [u8; 4] = b.try_into().unwrap();
        if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    let snaplen = word(&header[16..20]);
    let linktype = word(&header[20..24]);
    output.write_all(&interface_description(linktype as u16, snaplen, nanos))?;
    let mut record = [0u8; 16];
    let mut data = Vec::new();
    while read_full(&mut input, &mut record)? {
        let (secs, frac) = (word(&record[0..4]), word(&record[4..8]));
        let (captured, original) = (word(&record[8..12]) as usize, word(&record[12..16]));
        if captured > MAX_PACKET {
            return Err(io::Error::other("tcpdump's output holds a packet too long"));
        }
        data.resize(captured, 0);
        if !read_full(&mut input, &mut data)? {
            break; // tcpdump was stopped in the middle of a packet
        }
        if is_marker(linktype, &data) {
            if let Some(tell) = marker.take() {
                let _ = tell.send(());
            }
            continue;
        }
        let per_second: u64 = if nanos { 1_000_000_000 } else { 1_000_000 };
        let stamp = u64::from(secs) * per_second + u64::from(frac);
        output.write_all(&enhanced_packet(stamp, &data, original))?;
    }
    finish_file(output)
}

/// Whether a captured frame of link type `linktype` is a TCP segment to or from
/// [`MARKER_PORT`] over IPv4. Frames of a link type it does not know are never markers.
fn is_marker(linktype: u32, frame: &[u8]) -> bool {
    // Where the IP header starts: Ethernet (lo), raw IP (a TUN device), Linux cooked v1/v2.
    let (ip_at, ethertype_at) = match linktype {
        1 => (14, Some(12)),
        12 | 14 | 101 => (0, None),
        113 => (16, Some(14)),
        276 => (20, Some(0)),
        _ => return false,
    };
    if let Some(at) = ethertype_at {
        if frame.get(at..at + 2) != Some(&[0x08, 0x00]) {
            return false;
        }
    }
    let Some(ip) = frame.get(ip_at..) else {
        return false;
    };
    let (Some(&version_ihl), Some(&protocol)) = (ip.first(), ip.get(9)) else {
        return false;
    };
    if version_ihl >> 4 != 4 || protocol != 6 {
        return false;
    }
    let tcp_at = usize::from(version_ihl & 0x0F) * 4;
    let port = |at: usize| {
        ip.get(tcp_at + at..tcp_at + at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
    };
    port(0) == Some(MARKER_PORT) || port(2) == Some(MARKER_PORT)
}

fn finish_file(output: BufWriter<File>) -> io::Result<()> {
    let file = output.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}

/// Fills `buf`, or returns `false` at the end of the stream before its first byte (a stream
/// that ends inside `buf` ends there too: the record is incomplete).
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<bool> {
    match input.read_exact(buf) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// A block: type, total length, body (padded to 32 bits), total length again.
fn block(kind: u32, body: &[u8]) -> Vec<u8> {
    let padded = body.len().next_multiple_of(4);
    let total = (12 + padded) as u32;
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&total.to_le_bytes());
    out.extend_from_slice(body);
    out.resize(8 + padded, 0);
    out.extend_from_slice(&total.to_le_bytes());
    out
}

fn option(code: u16, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&code.to_le_bytes());
    out.extend_from_slice(&(value.len() as u16).to_le_bytes());
    out.extend_from_slice(value);
    out.resize(4 + value.len().next_multiple_of(4), 0);
    out
}

fn section_header() -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
    body.extend_from_slice(&1u16.to_le_bytes());
    body.extend_from_slice(&0u16.to_le_bytes());
    body.extend_from_slice(&(-1i64).to_le_bytes()); // section length: not given
    let app = format!("{WRITER} {} replay --capture", env!("CARGO_PKG_VERSION"));
    body.extend(option(SHB_USERAPPL, app.as_bytes()));
    body.extend(option(OPT_ENDOFOPT, &[]));
    block(SECTION_HEADER, &body)
}

fn interface_description(linktype: u16, snaplen: u32, nanos: bool) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&linktype.to_le_bytes());
    body.extend_from_slice(&0u16.to_le_bytes());
    body.extend_from_slice(&snaplen.to_le_bytes());
    if nanos {
        const IF_TSRESOL: u16 = 9;
        body.extend(option(IF_TSRESOL, &[9]));
        body.extend(option(OPT_ENDOFOPT, &[]));
    }
    block(INTERFACE_DESCRIPTION, &body)
}

fn enhanced_packet(stamp: u64, data: &[u8], original: u32) -> Vec<u8> {
    let mut body = Vec::with_capacity(20 + data.len());
    body.extend_from_slice(&0u32.to_le_bytes()); // interface 0
    body.extend_from_slice(&((stamp >> 32) as u32).to_le_bytes());
    body.extend_from_slice(&(stamp as u32).to_le_bytes());
    body.extend_from_slice(&(data.len() as u32).to_le_bytes());
    body.extend_from_slice(&original.to_le_bytes());
    body.extend_from_slice(data);
    block(ENHANCED_PACKET, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pcap_stream_becomes_pcapng_that_names_webdiet() {
        let mut pcap = Vec::new();
        pcap.extend_from_slice(&0xA1B2_C3D4u32.to_le_bytes());
        pcap.extend_from_slice(&2u16.to_le_bytes());
        pcap.extend_from_slice(&4u16.to_le_bytes());
        for word in [0u32, 0, 128, 1] {
            pcap.extend_from_slice(&word.to_le_bytes());
        }
        for word in [10u32, 20, 3, 60] {
            pcap.extend_from_slice(&word.to_le_bytes());
        }
        pcap.extend_from_slice(b"abc");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.pcapng");
        copy_as_pcapng(&pcap[..], File::create(&path).unwrap(), None).unwrap();
        assert!(is_ours(&path));
        // Section, interface and one packet, each block a multiple of four bytes long.
        assert_eq!(
            block_kinds(&path),
            [SECTION_HEADER, INTERFACE_DESCRIPTION, ENHANCED_PACKET]
        );
        std::fs::write(&path, b"a user's own notes").unwrap();
        assert!(!is_ours(&path));
    }

    /// The block types of the pcapng file at `path`, in order; every block's length is a
    /// multiple of four.
    fn block_kinds(path: &Path) -> Vec<u32> {
        let bytes = std::fs::read(path).unwrap();
        let mut at = 0;
        let mut kinds = Vec::new();
        while at < bytes.len() {
            let kind = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
            let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
            assert_eq!(len % 4, 0);
            kinds.push(kind);
            at += len;
        }
        kinds
    }

    /// An IPv4 TCP segment from `from` to `to` behind a frame header of `pad` bytes.
    fn segment(pad: &[u8], from: u16, to: u16) -> Vec<u8> {
        let mut frame = pad.to_vec();
        let mut ip = vec![
            0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1,
        ];
        ip.extend_from_slice(&from.to_be_bytes());
        ip.extend_from_slice(&to.to_be_bytes());
        ip.resize(40, 0);
        frame.extend(ip);
        frame
    }

    #[test]
    fn the_end_marker_is_a_segment_to_or_from_the_discard_port_on_every_link_type() {
        let ethernet = [[0u8; 12].as_slice(), &[0x08, 0x00]].concat();
        assert!(is_marker(1, &segment(&ethernet, 40_000, MARKER_PORT)));
        assert!(is_marker(1, &segment(&ethernet, MARKER_PORT, 40_000)));
        assert!(!is_marker(1, &segment(&ethernet, 40_000, 8080)));
        assert!(is_marker(101, &segment(&[], 40_000, MARKER_PORT)));
        assert!(is_marker(
            113,
            &segment(&[[0u8; 14].as_slice(), &[8, 0]].concat(), 1, 9)
        ));
        // Not IPv4 behind Ethernet, a truncated frame, an unknown link type: never a marker.
        let ipv6 = [[0u8; 12].as_slice(), &[0x86, 0xDD]].concat();
        assert!(!is_marker(1, &segment(&ipv6, 40_000, MARKER_PORT)));
        assert!(!is_marker(
            1,
            &segment(&ethernet, 40_000, MARKER_PORT)[..30]
        ));
        assert!(!is_marker(147, &segment(&[], 40_000, MARKER_PORT)));
    }

    #[test]
    fn the_marker_is_reported_once_and_left_out_of_the_file() {
        let mut pcap = Vec::new();
        for word in [0xA1B2_C3D4u32, 0x0004_0002, 0, 0, 128, 101] {
            pcap.extend_from_slice(&word.to_le_bytes());
        }
        for to in [80, MARKER_PORT, MARKER_PORT] {
            let packet = segment(&[], 40_000, to);
            for word in [1u32, 2, packet.len() as u32, packet.len() as u32] {
                pcap.extend_from_slice(&word.to_le_bytes());
            }
            pcap.extend(packet);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.pcapng");
        let (tell, told) = mpsc::channel();
        copy_as_pcapng(&pcap[..], File::create(&path).unwrap(), Some(tell)).unwrap();
        assert_eq!(told.try_iter().count(), 1);
        assert_eq!(
            block_kinds(&path),
            [SECTION_HEADER, INTERFACE_DESCRIPTION, ENHANCED_PACKET],
            "only the segment to port 80 is written"
        );
    }

    #[test]
    fn tcpdumps_drop_count_is_read_from_its_closing_words() {
        let said = "listening on lo\n12 packets captured\n12 packets received by filter\n\
                    3 packets dropped by kernel\n";
        assert_eq!(dropped_by_kernel(said), Some(3));
        assert_eq!(dropped_by_kernel("0 packets dropped by kernel"), Some(0));
        assert_eq!(dropped_by_kernel("tcpdump: nothing"), None);
    }
}
