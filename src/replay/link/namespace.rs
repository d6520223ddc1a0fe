//! The two ends of an emulated link: a network namespace each, holding one TUN device with a
//! point-to-point address from the RFC 2544 benchmarking range (198.18.0.0/15) and nothing
//! else — no route to anywhere, no IPv6 — so every packet the replay makes crosses the
//! forwarder and none can leave.
//!
//! `unshare(CLONE_NEWNET)` moves only the calling thread, so each namespace is made by a
//! short-lived thread of its own, which keeps a descriptor of it (`/proc/thread-self/ns/net`)
//! and the TUN file; any thread may later [`Netns::enter`] it.

use std::fs::File;
use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsFd, OwnedFd};

use serde::{Deserialize, Serialize};

use crate::sys;

/// The client's end of the link.
pub const CLIENT_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);
/// The server's end of the link.
pub const SERVER_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 2);
/// The TUN device in the client's namespace (tcpdump it there to see the client's wire).
pub const CLIENT_DEVICE: &str = "wd-client";
/// The TUN device in the server's namespace.
pub const SERVER_DEVICE: &str = "wd-server";

/// A network namespace, kept alive by its descriptor.
#[derive(Debug)]
pub struct Netns {
    fd: OwnedFd,
    /// `client` or `server`.
    role: &'static str,
}

impl Netns {
    /// Moves the calling thread into this namespace. Sockets it creates afterwards, and
    /// threads it spawns, live there.
    pub fn enter(&self) -> Result<(), LinkError> {
        sys::setns_net(self.fd.as_fd()).map_err(|e| LinkError::Setup {
            what: format!("setns into the {} namespace", self.role),
            source: e,
        })
    }

    /// Runs `f` on a new thread inside this namespace.
    pub fn spawn<T, F>(&self, f: F) -> std::thread::JoinHandle<Result<T, LinkError>>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let fd = self.fd.try_clone();
        let role = self.role;
        std::thread::spawn(move || {
            let fd = fd.map_err(|e| LinkError::Setup {
                what: format!("dup of the {role} namespace"),
                source: e,
            })?;
            Netns { fd, role }.enter()?;
            Ok(f())
        })
    }
}

/// What was set up on one end, for the run's description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndSetup {
    pub device: String,
    pub address: Ipv4Addr,
    pub peer: Ipv4Addr,
    pub mtu: u32,
    /// Offloads the kernel would not turn off (empty when all are off).
    pub offloads_on: Vec<String>,
    /// `net.ipv4.tcp_timestamps` in this namespace as set, or `None` when the kernel refused
    /// (the default, on, then applies).
    pub tcp_timestamps: Option<bool>,
}

/// One end: its namespace, its TUN device, and what was set.
pub struct End {
    pub netns: Netns,
    pub tun: File,
    pub setup: EndSetup,
}

/// How to make one end.
pub struct EndConfig {
    pub role: &'static str,
    pub device: &'static str,
    pub address: Ipv4Addr,
    pub peer: Ipv4Addr,
    pub mtu: u32,
    /// TCP timestamps on (12 bytes of options in every segment) or off. Default: off, as on
    /// the replay's loopback, so that segments carry MSS = MTU − 40 bytes of payload.
    pub timestamps: bool,
}

/// Makes a namespace with its TUN device, from a dedicated thread.
pub fn make_end(config: EndConfig) -> Result<End, LinkError> {
    std::thread::Builder::new()
        .name(format!("webdiet-{}-netns", config.role))
        .spawn(move || make_end_here(&config))
        .map_err(|e| LinkError::Setup {
            what: "thread to make a namespace".into(),
            source: e,
        })?
        .join()
        .map_err(|_| LinkError::Panicked("namespace setup"))?
}

fn make_end_here(config: &EndConfig) -> Result<End, LinkError> {
    let step = |what: String| move |source: io::Error| LinkError::Setup { what, source };
    sys::unshare_net().map_err(step(
        "unshare(CLONE_NEWNET): a network namespace needs root or a user namespace".into(),
    ))?;
    // Quiet links: IPv6 would send router solicitations and MLD reports over the device.
    for path in ["all", "default"] {
        let _ = std::fs::write(format!("/proc/sys/net/ipv6/conf/{path}/disable_ipv6"), "1");
    }
    let tcp_timestamps = std::fs::write(
        "/proc/sys/net/ipv4/tcp_timestamps",
        if config.timestamps { "1" } else { "0" },
    )
    .is_ok()
    .then_some(config.timestamps);
    sys::link_up("lo", None).map_err(step("lo: bring up".into()))?;
    let tun = sys::open_tun(config.device).map_err(step(format!(
        "/dev/net/tun: create TUN device {}",
        config.device
    )))?;
    let offloads_on =
        sys::offloads_off(config.device).map_err(step(format!("{}: ethtool", config.device)))?;
    sys::configure_point_to_point(config.device, config.address, config.peer, config.mtu).map_err(
        step(format!(
            "{}: address {} peer {} MTU {}",
            config.device, config.address, config.peer, config.mtu
        )),
    )?;
    let fd: OwnedFd = File::open("/proc/thread-self/ns/net")
        .map_err(step("/proc/thread-self/ns/net".into()))?
        .into();
    Ok(End {
        netns: Netns {
            fd,
            role: config.role,
        },
        tun,
        setup: EndSetup {
            device: config.device.to_string(),
            address: config.address,
            peer: config.peer,
            mtu: config.mtu,
            offloads_on: offloads_on.into_iter().map(String::from).collect(),
            tcp_timestamps,
        },
    })
}

/// Why an emulated link could not be set up or kept running.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// A step of the setup failed: `what` names the step (and so what is missing).
    #[error("{what}: {source}")]
    Setup {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the link forwarder failed: {0}")]
    Forwarder(#[source] std::io::Error),
    #[error("the link's {0} thread panicked")]
    Panicked(&'static str),
}
