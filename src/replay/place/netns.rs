//! The private loopback, one of the replay's links ([`super`]): Ethernet-like segmentation
//! without touching the host. The replay runs in a re-executed child
//! (`webdiet __replay-child`) that moves itself into a private network namespace — as root, or
//! in an unprivileged user namespace where the kernel allows it — whose loopback gets MTU
//! MSS + 40, offloads off (TSO/GSO/GRO/SG) and TCP timestamps off. Every TCP segment then
//! crosses `lo` on its own, as on a 1997 Ethernet, and the kernel's counters match a capture.
//!
//! A user namespace can only be entered by a single-threaded process, hence the child: it calls
//! `unshare` before creating any thread, then runs server and client and prints the [`Replay`]
//! as JSON on stdout.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::here::run_here;
use crate::replay::link::capture::Capture;
use crate::replay::link::emulator::{Emulator, EmulatorOptions};
use crate::replay::options::{Method, Replay, ReplayOptions};
use crate::replay::served::ServedSite;
use crate::sim::link::Link;
use crate::site::{self, CrawlOptions};
use crate::sys;

/// The hidden subcommand that runs the child.
pub const CHILD_COMMAND: &str = "__replay-child";

/// The environment variable that tells the child its parent's process id.
const PARENT_ENV: &str = "WEBDIET_REPLAY_PARENT";

/// Exit code of a child that could not enter a namespace (or make an emulated link).
const UNAVAILABLE: i32 = 3;

/// How the child's progress lines start on its stderr (the rest is its error message).
const PROGRESS: &str = "webdiet-progress: ";

/// Why the child did not produce a replay.
#[derive(Debug)]
pub enum ChildError {
    /// No namespace here: fall back to the host loopback.
    Unavailable(String),
    /// The replay itself failed.
    Failed(String),
}

/// Why the child could not make its private network namespace (so the parent falls back to
/// the host loopback); each variant names the step.
#[derive(Debug, thiserror::Error)]
pub enum NamespaceError {
    #[error("unshare(CLONE_NEWUSER|CLONE_NEWNET): {0}")]
    Unshare(#[source] std::io::Error),
    #[error("{file}: {source}")]
    IdMap {
        file: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("lo: cannot set MTU {mtu} and bring it up: {source}")]
    Loopback {
        mtu: u32,
        #[source]
        source: std::io::Error,
    },
    #[error("lo: ethtool: {0}")]
    Offloads(#[source] std::io::Error),
}

/// What the parent sends the child on stdin.
#[derive(Debug, Serialize, Deserialize)]
pub struct ChildRequest {
    pub dir: PathBuf,
    pub options: ReplayOptions,
    /// Each file's `Last-Modified` as the parent's served site has it (seconds since the
    /// epoch): the child reads the files again, and their dates must not change.
    pub modified: std::collections::BTreeMap<String, u64>,
    /// The link to replay over.
    #[serde(default = "loopback")]
    pub link: Link,
}

fn loopback() -> Link {
    Link::Loopback
}

/// Runs the replay of `site` over `link` in a namespaced child process; `progress` hears
/// the child's progress lines as they come.
pub fn run_in_child(
    site: &ServedSite,
    opts: &ReplayOptions,
    link: &Link,
    progress: &dyn Fn(&str),
) -> Result<Replay, ChildError> {
    let failed = |m: String| ChildError::Failed(m);
    let scratch;
    let dir = match &site.dir {
        Some(dir) => dir.clone(),
        None => {
            scratch = crate::scratch::Scratch::temp("replay")
                .map_err(|e| failed(format!("temporary directory: {e}")))?;
            // Beside the scratch tree's marker, which is no file of the site.
            let dir = scratch.path().join("site");
            site.write_to(&dir).map_err(|e| failed(e.to_string()))?;
            dir
        }
    };
    let exe =
        child_exe().map_err(|e| ChildError::Unavailable(format!("no webdiet binary: {e}")))?;
    let request = ChildRequest {
        dir,
        options: opts.clone(),
        modified: site.modified(),
        link: link.clone(),
    };
    let mut child = Command::new(&exe)
        .arg(CHILD_COMMAND)
        .env(PARENT_ENV, std::process::id().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ChildError::Unavailable(format!("{}: {e}", exe.display())))?;
    let json = serde_json::to_vec(&request).expect("options serialize");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(&json);
    }
    // stdout is the result; stderr carries progress lines, then any error message.
    let (stdout_pipe, stderr_pipe) = (child.stdout.take(), child.stderr.take());
    let (stdout, stderr) = std::thread::scope(|scope| {
        let out = scope.spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = stdout_pipe {
                let _ = std::io::Read::read_to_end(&mut pipe, &mut bytes);
            }
            bytes
        });
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        scope.spawn(move || {
            if let Some(pipe) = stderr_pipe {
                use std::io::BufRead;
                for line in std::io::BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            }
        });
        let mut message = Vec::new();
        for line in rx {
            match line.strip_prefix(PROGRESS) {
                Some(text) => progress(text),
                None => message.push(line),
            }
        }
        (out.join().unwrap_or_default(), message.join("\n"))
    });
    let status = child
        .wait()
        .map_err(|e| failed(format!("{}: {e}", exe.display())))?;
    let stderr = stderr.trim().to_string();
    match status.code() {
        Some(0) => serde_json::from_slice(&stdout)
            .map_err(|e| failed(format!("unreadable child output: {e}; {stderr}"))),
        Some(UNAVAILABLE) => Err(ChildError::Unavailable(stderr)),
        _ => Err(failed(stderr)),
    }
}

/// The webdiet binary: this process, or (under `cargo test`, where this process is a test
/// harness) the `WEBDIET_BIN` environment variable.
fn child_exe() -> std::io::Result<PathBuf> {
    if let Some(bin) = std::env::var_os("WEBDIET_BIN") {
        return Ok(PathBuf::from(bin));
    }
    let exe = std::env::current_exe()?;
    let name = exe
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "webdiet" {
        Ok(exe)
    } else {
        Err(std::io::Error::other(format!(
            "{} is not webdiet",
            exe.display()
        )))
    }
}

/// The child's body: enter the namespace (before any thread exists), set up `lo`, replay, print.
/// Returns the process exit code.
pub fn child_main() -> i32 {
    let parent = std::env::var(PARENT_ENV)
        .ok()
        .and_then(|pid| pid.parse().ok());
    if let Some(parent) = parent {
        if !sys::die_with_parent(parent) {
            eprintln!("the webdiet that started this replay is gone");
            return 2;
        }
    }
    // Reading stdin creates no thread: the process is still single-threaded for `unshare`.
    let request: ChildRequest = match serde_json::from_reader(std::io::stdin().lock()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bad request on stdin: {e}");
            return 2;
        }
    };
    let method = match enter(request.options.mss) {
        Ok(method) => method,
        Err(reason) => {
            eprintln!("{reason}");
            return UNAVAILABLE;
        }
    };
    // Can an emulated link be made here? Say exactly what is missing if not.
    if let Link::Emulated(spec) = &request.link {
        let probe = EmulatorOptions {
            realtime: false,
            ..EmulatorOptions::default()
        };
        match Emulator::start(spec, &probe).and_then(Emulator::stop) {
            Ok(_) => {}
            Err(e) => {
                eprintln!("emulated link {}: {e}", spec.name);
                return UNAVAILABLE;
            }
        }
    }
    let progress = |text: &str| eprintln!("{PROGRESS}{text}");
    let outcome = site::crawl(&request.dir, &CrawlOptions::default()).and_then(|site| {
        let (mut served, _problems) = ServedSite::from_site(&site);
        served.set_modified(&request.modified);
        // Over an emulated link the capture runs on the client's device (see `run_here`).
        let capture = match (&request.options.capture, &request.link) {
            (Some(file), Link::Loopback) => {
                Some(Capture::start(file, "lo", std::net::Ipv4Addr::LOCALHOST)?)
            }
            _ => None,
        };
        let replay = run_here(&served, &request.options, method, &request.link, &progress)?;
        capture.map_or(Ok(()), Capture::finish)?;
        Ok(replay)
    });
    match outcome {
        Ok(replay) => {
            let mut stdout = std::io::stdout().lock();
            let _ = serde_json::to_writer(&mut stdout, &replay);
            let _ = stdout.flush();
            0
        }
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}

/// Moves this (single-threaded) process into a new network namespace and sets up its loopback.
fn enter(mss: u32) -> Result<Method, NamespaceError> {
    let (uid, gid) = sys::ids();
    let name = if uid == 0 && sys::unshare(false).is_ok() {
        "netns"
    } else {
        sys::unshare(true).map_err(NamespaceError::Unshare)?;
        let write = |file: &'static str, text: String| {
            std::fs::write(file, text).map_err(|source| NamespaceError::IdMap { file, source })
        };
        write("/proc/self/setgroups", "deny".into())?;
        write("/proc/self/uid_map", format!("0 {uid} 1"))?;
        write("/proc/self/gid_map", format!("0 {gid} 1"))?;
        "userns+netns"
    };
    let mtu = mss + 40;
    sys::link_up("lo", Some(mtu)).map_err(|source| NamespaceError::Loopback { mtu, source })?;
    let refused = sys::offloads_off("lo").map_err(NamespaceError::Offloads)?;
    let timestamps_off = std::fs::write("/proc/sys/net/ipv4/tcp_timestamps", "0").is_ok();
    let mut detail = format!("private network namespace, lo MTU {mtu}");
    if refused.is_empty() {
        detail.push_str(", offloads off");
    } else {
        detail.push_str(&format!(", offloads still on: {}", refused.join(" ")));
    }
    // With timestamps on, clamp so that payloads are still `mss`.
    let tcp_maxseg = if timestamps_off {
        detail.push_str(", TCP timestamps off");
        None
    } else {
        detail.push_str(", TCP timestamps on");
        Some(mss + 12)
    };
    Ok(Method {
        name: name.into(),
        detail,
        tcp_maxseg,
    })
}
