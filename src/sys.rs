//! The Linux system calls webdiet needs that neither `std`, `socket2` nor `libc` wrap safely,
//! in one of the crate's two files of unsafe code: for the replay, private network namespaces (the
//! process's, or one thread's), interfaces (TUN devices, addresses, MTU, up, offloads off) and
//! the kernel's `TCP_INFO` counters; for the link emulator, the high-resolution timer
//! (timerfd), the wake-up (eventfd), `poll`, the monotonic clock and real-time priority; for
//! the image stage, the CPU time of the calling thread; for the outputs, `syncfs` and `flock`
//! (whose lock tells a live run's trees from a dead one's, `scratch`). The calls into libwebp (C) live in
//! `image/webp/libwebp.rs`, the only other file with unsafe code.
//!
//! Each function is a thin, checked wrapper with a `SAFETY` note; everything else is safe code.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;

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

/// Fails with the OS error when a libc call returned a negative value.
fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// Moves the calling *thread* into a new network namespace (`unshare(CLONE_NEWNET)`); the rest
/// of the process stays where it was.
pub fn unshare_net() -> io::Result<()> {
    // SAFETY: unshare takes flags only and touches no memory of ours.
    check(unsafe { libc::unshare(libc::CLONE_NEWNET) }).map(drop)
}

/// Moves the calling thread into the network namespace `fd` refers to (`setns(2)`).
pub fn setns_net(fd: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: `fd` is a live descriptor for the duration of the call; setns reads no memory.
    check(unsafe { libc::setns(fd.as_raw_fd(), libc::CLONE_NEWNET) }).map(drop)
}

/// The current value of `CLOCK_MONOTONIC` in nanoseconds: the clock timerfd deadlines use.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec that outlives the call; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// An interface request naming `name` (truncated to the kernel's 15 characters).
fn ifreq(name: &str) -> libc::ifreq {
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

/// Opens `/dev/net/tun` and attaches a new TUN device (IP packets, no packet-info header)
/// called `name` in the calling thread's network namespace. The device lives as long as the
/// returned file; reads and writes are non-blocking and carry one IP packet each.
pub fn open_tun(name: &str) -> io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open("/dev/net/tun")?;
    let mut req = ifreq(name);
    req.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    // SAFETY: `req` is an initialised ifreq that outlives the call; TUNSETIFF reads the name
    // and flags and may write the final name back into it.
    check(unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, &mut req) })?;
    Ok(file)
}

/// A datagram socket in the calling thread's namespace, for interface ioctls.
struct Control(socket2::Socket);

impl Control {
    fn new() -> io::Result<Self> {
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::DGRAM, None).map(Control)
    }

    fn ioctl(&self, op: libc::c_ulong, req: &mut libc::ifreq) -> io::Result<()> {
        // SAFETY: `req` is a valid, initialised ifreq that outlives the call; for SIOCETHTOOL
        // its data pointer is set by the caller to a live EthtoolValue.
        check(unsafe { libc::ioctl(self.0.as_raw_fd(), op as _, req as *mut libc::ifreq) })
            .map(drop)
    }
}

/// `addr` as the `sockaddr` an interface ioctl takes (AF_INET, port 0).
fn sockaddr(addr: Ipv4Addr) -> libc::sockaddr {
    let mut sa = libc::sockaddr {
        sa_family: libc::AF_INET as libc::sa_family_t,
        sa_data: [0; 14],
    };
    // sockaddr_in after the family: 2 bytes of port, then the address in network order.
    for (dst, src) in sa.sa_data[2..6].iter_mut().zip(addr.octets()) {
        *dst = src as libc::c_char;
    }
    sa
}

/// Gives interface `name` the point-to-point addresses `local` ↔ `peer` (netmask /32, so the
/// kernel routes only the peer through it), sets its MTU and brings it up.
pub fn configure_point_to_point(
    name: &str,
    local: Ipv4Addr,
    peer: Ipv4Addr,
    mtu: u32,
) -> io::Result<()> {
    let control = Control::new()?;
    let mut req = ifreq(name);
    req.ifr_ifru.ifru_addr = sockaddr(local);
    control.ioctl(libc::SIOCSIFADDR, &mut req)?;
    let mut req = ifreq(name);
    req.ifr_ifru.ifru_netmask = sockaddr(Ipv4Addr::BROADCAST);
    control.ioctl(libc::SIOCSIFNETMASK, &mut req)?;
    let mut req = ifreq(name);
    req.ifr_ifru.ifru_dstaddr = sockaddr(peer);
    control.ioctl(libc::SIOCSIFDSTADDR, &mut req)?;
    set_mtu_and_up(&control, name, mtu)
}

/// Brings interface `name` up, with `mtu` when given.
pub fn link_up(name: &str, mtu: Option<u32>) -> io::Result<()> {
    let control = Control::new()?;
    match mtu {
        Some(mtu) => set_mtu_and_up(&control, name, mtu),
        None => set_up(&control, name),
    }
}

fn set_mtu_and_up(control: &Control, name: &str, mtu: u32) -> io::Result<()> {
    let mut req = ifreq(name);
    req.ifr_ifru.ifru_mtu = mtu as libc::c_int;
    control.ioctl(libc::SIOCSIFMTU, &mut req)?;
    set_up(control, name)
}

fn set_up(control: &Control, name: &str) -> io::Result<()> {
    let mut req = ifreq(name);
    control.ioctl(libc::SIOCGIFFLAGS, &mut req)?;
    // SAFETY: SIOCGIFFLAGS filled the flags member of the union.
    let flags = unsafe { req.ifr_ifru.ifru_flags };
    req.ifr_ifru.ifru_flags = flags | libc::IFF_UP as libc::c_short;
    control.ioctl(libc::SIOCSIFFLAGS, &mut req)
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

/// Turns segmentation and receive offloads off on `name` (TSO, GSO, GRO, scatter-gather), so
/// that every TCP segment crosses the device on its own. Returns the settings the kernel refused.
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
        let mut req = ifreq(name);
        req.ifr_ifru.ifru_data = (&mut value as *mut EthtoolValue).cast();
        if control.ioctl(libc::SIOCETHTOOL, &mut req).is_err() {
            refused.push(what);
        }
    }
    Ok(refused)
}

/// A non-blocking `CLOCK_MONOTONIC` timerfd (a high-resolution timer: no timer slack applies).
pub fn timerfd() -> io::Result<File> {
    // SAFETY: timerfd_create takes constants only; a non-negative result is a new descriptor
    // that nothing else owns.
    let fd = check(unsafe {
        libc::timerfd_create(
            libc::CLOCK_MONOTONIC,
            libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
        )
    })?;
    // SAFETY: `fd` was just created and is owned by nobody else.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Arms `timer` to fire once at `deadline_ns` on `CLOCK_MONOTONIC` (0 disarms it).
pub fn timer_set(timer: &File, deadline_ns: u64) -> io::Result<()> {
    let spec = libc::itimerspec {
        it_interval: libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        },
        it_value: libc::timespec {
            tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
        },
    };
    // SAFETY: `spec` is a valid itimerspec that outlives the call; the old value is not asked for.
    check(unsafe {
        libc::timerfd_settime(
            timer.as_raw_fd(),
            libc::TFD_TIMER_ABSTIME,
            &spec,
            std::ptr::null_mut(),
        )
    })
    .map(drop)
}

/// Takes an exclusive `flock` on `file` without waiting: `Ok(true)` when taken (held until
/// the file is closed, or the process ends), `Ok(false)` when another open file holds it, an
/// error when the file system has no locks.
pub fn try_lock(file: &File) -> io::Result<bool> {
    // SAFETY: flock takes an open descriptor, which `file` keeps open during the call.
    match check(unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }) {
        Ok(_) => Ok(true),
        Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Writes every dirty page of the file system that holds `file` to its disk (`syncfs`): one
/// call for a whole tree of new files, where an `fdatasync` each costs a disk flush each.
pub fn syncfs(file: &File) -> io::Result<()> {
    // SAFETY: syncfs takes an open descriptor, which `file` keeps open during the call.
    check(unsafe { libc::syncfs(file.as_raw_fd()) }).map(drop)
}

/// A non-blocking eventfd: one thread writes 8 bytes to wake the pollers of another.
pub fn eventfd() -> io::Result<File> {
    // SAFETY: eventfd takes constants only; a non-negative result is a new descriptor.
    let fd = check(unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) })?;
    // SAFETY: `fd` was just created and is owned by nobody else.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Waits until one of `fds` is readable (no timeout: the timerfds carry the deadlines) and
/// returns, for each, whether it is. EINTR counts as "nothing ready".
pub fn poll_readable(fds: &[BorrowedFd<'_>], ready: &mut Vec<bool>) -> io::Result<()> {
    let mut polls: Vec<libc::pollfd> = fds
        .iter()
        .map(|fd| libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: the pointer and length describe `polls`, which lives across the call; the
    // descriptors are borrowed, hence open.
    let rc = unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, -1) };
    ready.clear();
    if rc < 0 {
        let err = io::Error::last_os_error();
        if err.kind() == io::ErrorKind::Interrupted {
            ready.resize(fds.len(), false);
            return Ok(());
        }
        return Err(err);
    }
    ready.extend(
        polls
            .iter()
            .map(|p| p.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP) != 0),
    );
    Ok(())
}

/// Gives the calling thread real-time (`SCHED_FIFO`) priority `priority`, so that it runs as
/// soon as its timer fires instead of waiting for a busy core's time slice to end.
pub fn set_realtime(priority: i32) -> io::Result<()> {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: `param` is a valid sched_param that outlives the call; pid 0 is the caller.
    check(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) }).map(drop)
}
