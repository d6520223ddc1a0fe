//! The Linux system calls webdiet needs that neither `std`, `socket2` nor `libc` wrap safely:
//! entering a private network namespace, configuring its loopback interface (MTU, up, offloads
//! off) and reading the kernel's `TCP_INFO` counters for the replay, and the CPU time of the
//! calling thread, which the image stage reports per image. At the crate's root because two
//! stages use it. The link emulator's TUN and timer calls live beside it in
//! `replay/link/sys.rs`, and the calls into libwebp (C) in `image/webp/libwebp.rs`; those three
//! files are the only unsafe code.
//!
//! Each function is a thin, checked wrapper; everything else is safe code.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::AsRawFd;

/// CPU time (user + system) the calling thread has used so far (`CLOCK_THREAD_CPUTIME_ID`);
/// zero if the clock cannot be read.
pub fn thread_cpu_time() -> std::time::Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes to it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return std::time::Duration::ZERO;
    }
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The kernel's per-connection TCP counters that the meter uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpInfo {
    /// Every segment sent, SYN, FIN and pure ACKs included (`tcpi_segs_out`).
    pub segs_out: u64,
    /// Every segment received (`tcpi_segs_in`).
    pub segs_in: u64,
    /// Segments sent that carried payload (`tcpi_data_segs_out`).
    pub data_segs_out: u64,
    /// Segments received that carried payload (`tcpi_data_segs_in`).
    pub data_segs_in: u64,
    /// Sent segments not yet acknowledged by the peer (`tcpi_unacked`).
    pub unacked: u32,
    /// The MSS the connection sends with (`tcpi_snd_mss`).
    pub snd_mss: u32,
    /// Retransmitted segments over the connection's life (`tcpi_total_retrans`).
    pub total_retrans: u32,
}

/// Reads `TCP_INFO` from a connected TCP socket.
pub fn tcp_info(socket: &impl AsRawFd) -> io::Result<TcpInfo> {
    // SAFETY: `tcp_info` is a plain C struct of integers, so all-zero is a valid value.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: the pointer and length describe `info`, which lives across the call; the kernel
    // writes at most `len` bytes and updates `len`.
    let rc = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(TcpInfo {
        segs_out: u64::from(info.tcpi_segs_out),
        segs_in: u64::from(info.tcpi_segs_in),
        data_segs_out: u64::from(info.tcpi_data_segs_out),
        data_segs_in: u64::from(info.tcpi_data_segs_in),
        unacked: info.tcpi_unacked,
        snd_mss: info.tcpi_snd_mss,
        total_retrans: info.tcpi_total_retrans,
    })
}

/// Moves the calling process into new namespaces (`unshare(2)`). `CLONE_NEWUSER` only works
/// while the process is single-threaded.
pub fn unshare(user: bool) -> io::Result<()> {
    let mut flags = libc::CLONE_NEWNET;
    if user {
        flags |= libc::CLONE_NEWUSER;
    }
    // SAFETY: unshare takes flags only and touches no memory of ours.
    if unsafe { libc::unshare(flags) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Asks the kernel to kill this process when its parent dies (`PR_SET_PDEATHSIG`), so that a
/// replay child never outlives the `webdiet` that started it (a SIGTERM to the parent alone,
/// say). Returns false when `parent` (the process id the parent gave us) is already gone: the
/// kernel re-parented us before the call, and the signal will never come.
pub fn die_with_parent(parent: u32) -> bool {
    // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    // SAFETY: getppid cannot fail and touches no memory.
    let now = unsafe { libc::getppid() };
    u32::try_from(now).is_ok_and(|now| now == parent)
}

/// The real user and group ids, for the new user namespace's id maps.
pub fn ids() -> (u32, u32) {
    // SAFETY: getuid/getgid cannot fail and touch no memory.
    unsafe { (libc::getuid(), libc::getgid()) }
}

const ETHTOOL_SSG: u32 = 0x0000_0004;
const ETHTOOL_STSO: u32 = 0x0000_001f;
const ETHTOOL_SGSO: u32 = 0x0000_0024;
const ETHTOOL_SGRO: u32 = 0x0000_002c;

/// `struct ethtool_value` from `<linux/ethtool.h>`.
#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

/// A control socket for interface ioctls.
struct Control(std::net::UdpSocket);

impl Control {
    fn new() -> io::Result<Self> {
        Ok(Control(std::net::UdpSocket::bind("127.0.0.1:0").or_else(
            // The loopback is still down in a fresh namespace: any datagram socket will do.
            |_| std::net::UdpSocket::bind("0.0.0.0:0"),
        )?))
    }

    fn request(name: &str) -> libc::ifreq {
        // SAFETY: `ifreq` is a C struct of integers, arrays and a union of such: zero is valid.
        let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
        for (dst, src) in req
            .ifr_name
            .iter_mut()
            .zip(name.bytes().take(libc::IFNAMSIZ - 1))
        {
            *dst = src as libc::c_char;
        }
        req
    }

    fn ioctl(&self, op: libc::c_ulong, req: &mut libc::ifreq) -> io::Result<()> {
        // SAFETY: `req` is a valid, initialised ifreq that outlives the call; for SIOCETHTOOL its
        // data pointer is set by the caller to a live EthtoolValue.
        let rc = unsafe { libc::ioctl(self.0.as_raw_fd(), op as _, req as *mut libc::ifreq) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Sets an interface's MTU and brings it up.
pub fn link_up(name: &str, mtu: u32) -> io::Result<()> {
    let control = Control::new()?;
    let mut req = Control::request(name);
    req.ifr_ifru.ifru_mtu = mtu as libc::c_int;
    control.ioctl(libc::SIOCSIFMTU, &mut req)?;
    let mut req = Control::request(name);
    control.ioctl(libc::SIOCGIFFLAGS, &mut req)?;
    // SAFETY: SIOCGIFFLAGS filled the flags member of the union.
    let flags = unsafe { req.ifr_ifru.ifru_flags };
    req.ifr_ifru.ifru_flags = flags | libc::IFF_UP as libc::c_short;
    control.ioctl(libc::SIOCSIFFLAGS, &mut req)
}

/// Turns segmentation and receive offloads off (TSO, GSO, GRO, scatter-gather), so that each
/// TCP segment crosses the interface on its own as on a real Ethernet. Returns which settings
/// the kernel refused (an empty list when all took).
pub fn offloads_off(name: &str) -> io::Result<Vec<&'static str>> {
    let control = Control::new()?;
    let mut refused = Vec::new();
    for (cmd, what) in [
        (ETHTOOL_STSO, "tso"),
        (ETHTOOL_SGSO, "gso"),
        (ETHTOOL_SGRO, "gro"),
        (ETHTOOL_SSG, "sg"),
    ] {
        let mut value = EthtoolValue { cmd, data: 0 };
        let mut req = Control::request(name);
        req.ifr_ifru.ifru_data = (&mut value as *mut EthtoolValue).cast();
        if control.ioctl(libc::SIOCETHTOOL, &mut req).is_err() {
            refused.push(what);
        }
    }
    Ok(refused)
}
