//! The emulated link without root: inside a user namespace (where the replay's child runs
//! when webdiet is not root), and as an unprivileged user, where it either works or says
//! exactly what is missing. Each test re-executes this test binary under `unshare` (and
//! `setpriv`), because a user namespace can only be entered by a single-threaded process.

use crate::common;

use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::Instant;

use common::{in_ci, timing_turn};
use webdiet::replay::link::{self, Emulator, EmulatorOptions, Link, Priority};

/// Set in the re-executed child: which test body to run there.
const CHILD: &str = "WEBDIET_LINK_TEST_CHILD";

/// Starts the emulator over a 10 ms RTT and measures the median of 5 handshakes, in ms.
fn handshake_over_emulated_link() -> Result<(f64, Priority), link::LinkError> {
    let Link::Emulated(spec) = webdiet::sim::link::parse("rtt=10ms").unwrap().remove(0) else {
        unreachable!()
    };
    let emulator = Emulator::start(&spec, &EmulatorOptions::default())?;
    let addr = emulator.server_addr();
    let (tx, rx) = std::sync::mpsc::channel();
    let server = emulator.server().spawn(move || {
        let listener = TcpListener::bind((addr, 0)).unwrap();
        tx.send(listener.local_addr().unwrap()).unwrap();
        for _ in 0..5 {
            drop(listener.accept().unwrap());
        }
    });
    let to = rx.recv().unwrap();
    let ms = emulator
        .client()
        .spawn(move || {
            let mut times: Vec<f64> = (0..5)
                .map(|_| {
                    let started = Instant::now();
                    drop(TcpStream::connect(to).unwrap());
                    started.elapsed().as_secs_f64() * 1000.0
                })
                .collect();
            times.sort_by(f64::total_cmp);
            times[2]
        })
        .join()
        .unwrap()?;
    server.join().unwrap()?;
    Ok((ms, emulator.priority().clone()))
}

/// Re-runs test `name` of this binary under `wrapper`, with the child marker set.
fn rerun(wrapper: &[&str], name: &str) -> Option<std::process::Output> {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(wrapper[0])
        .args(&wrapper[1..])
        .arg(&exe)
        .args([
            "--exact",
            &test_path(name),
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD, name)
        .output();
    match out {
        Ok(out) => Some(out),
        Err(e) => {
            assert!(!in_ci(), "CI=true but {} cannot run: {e}", wrapper[0]);
            eprintln!("note: skipping, {} is not available: {e}", wrapper[0]);
            None
        }
    }
}

/// The harness's name for test `name` of this module: its module path without the crate.
fn test_path(name: &str) -> String {
    match module_path!().split_once("::") {
        Some((_crate, module)) => format!("{module}::{name}"),
        None => name.to_string(),
    }
}

/// Whether `unshare --user` works here at all (user namespaces may be disabled).
fn user_namespaces_available() -> bool {
    let ok = Command::new("unshare")
        .args(["--user", "--map-root-user", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(!in_ci(), "CI=true but user namespaces are not available");
        eprintln!("note: skipping, user namespaces are not available here");
    }
    ok
}

#[test]
fn the_emulator_works_inside_a_user_namespace() {
    const NAME: &str = "the_emulator_works_inside_a_user_namespace";
    if std::env::var(CHILD).as_deref() == Ok(NAME) {
        let (ms, priority) = handshake_over_emulated_link()
            .unwrap_or_else(|e| panic!("no emulated link in a user namespace: {e}"));
        println!("handshake {ms:.3} ms, forwarder {priority:?}");
        // Accuracy is tests/link.rs's job (as root, with a real-time forwarder). Here the
        // forwarder may only run at normal priority, so a busy machine adds its scheduling
        // delays, and only the physics is asserted: a handshake cannot beat the RTT (less
        // 0.1 ms of timer granularity), which shows the link delays; and it ends well before
        // a lost SYN's 1 s retransmission, which shows it carries packets. The upper bound is
        // generous on purpose: a wall-clock window would make a loaded machine fail the test.
        assert!(
            ms >= 9.9,
            "handshake {ms:.3} ms over a 10 ms RTT: faster than the link"
        );
        assert!(
            ms < 500.0,
            "handshake {ms:.3} ms over a 10 ms RTT: packets were lost or held"
        );
        return;
    }
    if !user_namespaces_available() {
        return;
    }
    let _turn = timing_turn();
    let Some(out) = rerun(&["unshare", "--user", "--map-root-user", "--"], NAME) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("handshake"),
        "in a user namespace:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_unprivileged_user_gets_the_link_or_hears_what_is_missing() {
    const NAME: &str = "an_unprivileged_user_gets_the_link_or_hears_what_is_missing";
    if std::env::var(CHILD).as_deref() == Ok(NAME) {
        match handshake_over_emulated_link() {
            Ok((ms, _)) => println!("works: handshake {ms:.3} ms"),
            Err(e) => println!("refused: {e}"),
        }
        return;
    }
    // setpriv can only drop to another user from root.
    if !is_root() {
        eprintln!("note: skipping, dropping to an unprivileged user needs root");
        return;
    }
    if !user_namespaces_available() {
        return;
    }
    let _turn = timing_turn();
    let wrapper = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "unshare",
        "--user",
        "--map-root-user",
        "--",
    ];
    let Some(out) = rerun(&wrapper, NAME) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    if let Some(reason) = stdout
        .lines()
        .find_map(|l| l.split_once("refused: ").map(|(_, reason)| reason))
    {
        // This machine's /dev/net/tun may be root-only (mode 0600): then the message must
        // name the device and the step, not just "permission denied".
        assert!(
            reason.contains("/dev/net/tun") && reason.contains("TUN device"),
            "{reason}"
        );
        eprintln!("note: unprivileged here: {reason}");
    } else {
        assert!(stdout.contains("works: handshake"), "{stdout}");
    }
}

/// Whether this process runs as root (uid 0 in `/proc/self/status`).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false)
}
