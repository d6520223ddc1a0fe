//! `webdiet replay` over emulated links, through the built binary: the data segments on a
//! lossless `lan-1997` equal loopback's (accuracy test 4), time is a measured result that
//! orders links and modes as physics says it must, and a run that times out on a lossy link is
//! reported as timed out, never dropped.
//!
//! They need root (or a user namespace) and /dev/net/tun: without them the replay says what is
//! missing and reports loopback only, and these tests check that instead (under CI=true they
//! fail). Bounds are relations between measurements, wide enough for a loaded 2-core machine:
//! a link whose time is physics-bound far above the other's, never a measured figure.

use crate::common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use common::{in_ci, microscape, timing_turn};

const BIN: &str = env!("CARGO_BIN_EXE_webdiet");

/// The rows of `webdiet replay --json ARGS`, and its stderr.
fn replay(args: &[&str]) -> (Vec<Value>, String) {
    replay_site(&microscape(), args)
}

/// The rows of `webdiet replay SITE --json ARGS`, and its stderr.
fn replay_site(site: &Path, args: &[&str]) -> (Vec<Value>, String) {
    let out = Command::new(BIN)
        .arg("replay")
        .arg(site)
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "webdiet replay {args:?}: {stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

/// Whether the rows came over the emulated link; `false` (with a note) when the link could not
/// run here, after checking that the run said why and still reported loopback.
fn emulated(rows: &[Value], stderr: &str, link: &str) -> bool {
    if rows.iter().any(|r| r["link"]["name"] == link) {
        return true;
    }
    assert!(
        !in_ci(),
        "CI=true but the link {link} did not run: {stderr}"
    );
    assert!(
        stderr.contains(&format!("link {link} not replayed: ")),
        "a link that cannot run says why: {stderr}"
    );
    assert!(
        rows.iter().all(|r| r["link"]["name"] == "loopback"),
        "the loopback results are still reported"
    );
    eprintln!("note: skipping, no emulated link here: {stderr}");
    false
}

fn row<'a>(rows: &'a [Value], link: &str, mode: &str, test: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["link"]["name"] == link && r["mode"] == mode && r["test"] == test)
        .unwrap_or_else(|| panic!("no row {link} {mode} {test}"))
}

fn median(row: &Value, path: &[&str]) -> f64 {
    let mut v = row;
    for key in path {
        v = &v[*key];
    }
    v["median"].as_f64().unwrap()
}

#[test]
fn on_a_lossless_lan_1997_the_data_segments_equal_loopbacks_and_the_kernel_agrees() {
    let _turn = timing_turn();
    let (rows, stderr) = replay(&[
        "--link",
        "loopback,lan-1997",
        "--runs",
        "1",
        "--modes",
        "http10,persistent,pipelined,https-pipelined,h2c",
    ]);
    if !emulated(&rows, &stderr, "lan-1997") {
        return;
    }
    for mode in [
        "http10",
        "persistent",
        "pipelined",
        "https-pipelined",
        "h2c",
    ] {
        for test in ["first", "validate"] {
            let lo = row(&rows, "loopback", mode, test);
            let lan = row(&rows, "lan-1997", mode, test);
            assert_eq!(lan["method"], "link", "{mode} {test}");
            assert_eq!(lan["mss"], 1460, "MSS follows the MTU of 1500");
            assert_eq!(lan["timed_out_runs"], 0, "{mode} {test}");
            // (Bytes up differ by the Host field: 198.18.0.2 is a byte longer than 127.0.0.1.)
            for field in [
                "requests",
                "connections",
                "bytes_down",
                "data_segments_up",
                "data_segments_down",
            ] {
                assert_eq!(lo[field], lan[field], "{mode} {test}: {field}");
            }
            // The kernel's first transmissions: the model's, up to its own segmentation,
            // which depends on timing both ways (on a busy machine on loopback too): a write queued behind
            // a full congestion window can share a segment with the next one (fewer), and a
            // server's tail-loss probe, fired while the client delays its ACK of an odd last
            // segment, counts as data received (more). Bounded by one per connection plus 5%
            // (a clean-clone CI run, loaded by its own build, counted 128 on loopback against
            // the model's 123 for h2c's first visit: 2% and one connection allowed only 3).
            let kernel = |r: &Value| median(r, &["kernel", "new_data_segments"]) as u64;
            let model = lan["data_segments_up"].as_u64().unwrap()
                + lan["data_segments_down"].as_u64().unwrap();
            let slack = lan["connections"].as_u64().unwrap() + model / 20;
            for (name, r) in [("loopback", lo), ("lan-1997", lan)] {
                assert!(
                    kernel(r).abs_diff(model) <= slack,
                    "{mode} {test}: {name} kernel {} vs model {model} (± {slack})",
                    kernel(r)
                );
            }
        }
    }
}

#[test]
fn time_orders_links_and_modes_as_the_network_must() {
    let _turn = timing_turn();
    let (rows, stderr) = replay(&[
        "--link",
        "lan-1997,wan-1997",
        "--runs",
        "3",
        "--modes",
        "http10,pipelined",
        "--tests",
        "first",
    ]);
    if !emulated(&rows, &stderr, "wan-1997") {
        return;
    }
    for r in &rows {
        let t = |k: &str| median(r, &["time", k]);
        let what = format!("{} {}", r["link"]["name"], r["mode"]);
        assert!(t("first_byte_ms") > 0.0, "{what}");
        assert!(t("first_byte_ms") <= t("complete_ms"), "{what}");
        assert!(t("complete_ms") <= t("last_packet_ms"), "{what}");
        // Every run's waterfall request was sent before its first byte, and that before its
        // last; the page is the first request.
        let waterfall = r["waterfall"].as_array().unwrap();
        assert_eq!(
            waterfall.len() as u64,
            r["requests"].as_u64().unwrap(),
            "{what}"
        );
        assert_eq!(waterfall[0]["target"], "/index.html", "{what}");
        for w in waterfall {
            let f = |k: &str| w[k].as_f64().unwrap();
            assert!(f("sent_ms") <= f("first_byte_ms"), "{what}: {w}");
            assert!(f("first_byte_ms") <= f("done_ms"), "{what}: {w}");
        }
        // Over a link with RTT r, no visit completes in less than a handshake plus a request.
        let rtt = r["link"]["spec"]["rtt_ms"].as_f64().unwrap();
        assert!(t("last_packet_ms") >= 2.0 * rtt, "{what}");
    }
    for mode in ["http10", "pipelined"] {
        let lan = median(
            row(&rows, "lan-1997", mode, "first"),
            &["time", "last_packet_ms"],
        );
        let wan = median(
            row(&rows, "wan-1997", mode, "first"),
            &["time", "last_packet_ms"],
        );
        assert!(
            wan >= lan,
            "{mode}: the slower link takes longer: {wan} < {lan}"
        );
    }
    for link in ["lan-1997", "wan-1997"] {
        let http10 = median(
            row(&rows, link, "http10", "first"),
            &["time", "last_packet_ms"],
        );
        let piped = median(
            row(&rows, link, "pipelined", "first"),
            &["time", "last_packet_ms"],
        );
        assert!(
            piped <= http10,
            "{link}: pipelined is never slower than HTTP/1.0 on a lossless link: {piped} > {http10}"
        );
    }
}

/// A site whose page is larger than HTTP/2's initial flow-control window and needs six images of
/// 20 KB and, after them in document order, a style sheet: on a slow link they all compete for
/// the same bytes.
fn heavy_page_site(dir: &Path) {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut noise = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    };
    let mut page = String::from("<!DOCTYPE html><html><head><title>heavy</title></head><body>");
    for i in 0..6 {
        page.push_str(&format!("<img src=\"i{i}.gif\" alt=\"\">"));
        let mut gif = b"GIF89a".to_vec();
        gif.extend(noise(20_000));
        std::fs::write(dir.join(format!("i{i}.gif")), gif).unwrap();
    }
    // After the images in document order, so that only its priority can put it before them.
    page.push_str("<link rel=\"stylesheet\" href=\"site.css\">");
    while page.len() < 80_000 {
        page.push_str("<p>Every byte of this page is wanted before the images' bytes.</p>");
    }
    page.push_str("</body></html>");
    std::fs::write(dir.join("index.html"), page).unwrap();
    let sheet: String = (0..400)
        .map(|i| format!(".c{i} {{ margin: {i}px }}\n"))
        .collect();
    std::fs::write(dir.join("site.css"), sheet).unwrap();
}

#[test]
fn on_a_slow_link_http2_finishes_the_page_first_and_starts_the_sheet_before_the_images() {
    let _turn = timing_turn();
    let site = tempfile::tempdir().unwrap();
    heavy_page_site(site.path());
    // With push the sheet and the images come unasked: only the server's order keeps the page
    // first (`h2` itself takes turns between every stream with queued data; docs/h2.md).
    let link = "down=1mbit,up=1mbit,rtt=20ms";
    let (rows, stderr) = replay_site(
        site.path(),
        &[
            "--link",
            link,
            "--runs",
            "1",
            "--modes",
            "h2c,h2c-hints,h2c-push,h2-push",
            "--tests",
            "first",
        ],
    );
    let name = rows
        .iter()
        .map(|r| r["link"]["name"].as_str().unwrap())
        .find(|n| *n != "loopback")
        .map(str::to_string);
    let Some(name) = name else {
        emulated(&rows, &stderr, link);
        return;
    };
    for mode in ["h2c", "h2c-hints", "h2c-push", "h2-push"] {
        let r = row(&rows, &name, mode, "first");
        let waterfall = r["waterfall"].as_array().unwrap();
        let at = |target: &str, key: &str| {
            waterfall
                .iter()
                .find(|w| w["target"] == target)
                .unwrap_or_else(|| panic!("{mode}: no {target} in {waterfall:?}"))[key]
                .as_f64()
                .unwrap()
        };
        let page = at("/index.html", "done_ms");
        // Pushed or hinted, the sheet and the images are on their way while the page's 80 KB
        // still are: the page's bytes finish first.
        for w in waterfall.iter().filter(|w| w["target"] != "/index.html") {
            let done = w["done_ms"].as_f64().unwrap();
            assert!(page < done, "{mode}: the page ({page} ms) before {w}");
        }
        // At 1 Mbit/s the page alone takes 640 ms: finishing first is not timing noise.
        assert!(page >= 600.0, "{mode}: 80 KB at 1 Mbit/s in {page} ms");
        // The sheet, last in document order, starts before every image: urgency decides.
        let sheet = at("/site.css", "first_byte_ms");
        for i in 0..6 {
            let image = at(&format!("/i{i}.gif"), "first_byte_ms");
            assert!(
                sheet <= image,
                "{mode}: the sheet's first byte ({sheet} ms) before image {i}'s ({image} ms)"
            );
        }
    }
}

#[test]
fn runs_that_time_out_on_a_lossy_link_are_counted_not_dropped() {
    let _turn = timing_turn();
    // 40% loss each way and a 1 s patience: SYNs lost twice in a row (1 s, then 2 s more)
    // make visits give up.
    let (rows, stderr) = replay(&[
        "--link",
        "rtt=10ms,loss=40%",
        "--runs",
        "3",
        "--modes",
        "http10",
        "--timeout",
        "1",
    ]);
    if !emulated(&rows, &stderr, "rtt=10ms,loss=40%") {
        return;
    }
    let first = row(&rows, "rtt=10ms,loss=40%", "http10", "first");
    let validate = row(&rows, "rtt=10ms,loss=40%", "http10", "validate");
    assert_eq!(first["runs"], 3, "every run is reported");
    let timed_out = first["timed_out_runs"].as_u64().unwrap();
    assert!(timed_out > 0, "43 connections through 40% loss: {first}");
    // Timed-out runs are in the time spreads, at the time they gave up (≥ the patience).
    let spread = &first["time"]["last_packet_ms"];
    assert_eq!(spread["runs"], 3, "{first}");
    assert!(spread["max"].as_f64().unwrap() >= 1000.0, "{first}");
    // A validation after a timed-out first visit is not made, and is counted as timed out.
    assert!(validate["timed_out_runs"].as_u64().unwrap() >= timed_out);
    assert_eq!(validate["runs"], 3);
    // The seeds of the runs are distinct and recorded.
    let seeds: Vec<u64> = first["link"]["seeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    assert_eq!(seeds, vec![1, 2, 3]);
}

#[test]
fn an_unknown_link_or_a_bad_runs_on_exits_2_listing_the_valid_forms() {
    for args in [
        vec!["--link", "5G-ultra"],
        vec!["--link", "down=2mbit,rtt=fast"],
        vec!["--link", "Cable", "--runs-on", "Cable=0"],
        vec!["--link", "Cable", "--runs-on", "nolink=3"],
    ] {
        let out = Command::new(BIN)
            .arg("replay")
            .arg(microscape())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("valid forms") || stderr.contains("N must be"),
            "{args:?}: {stderr}"
        );
    }
    let out = Command::new(BIN)
        .arg("replay")
        .arg(microscape())
        .args(["--link", "lan-1997,wan-1997", "--capture", "x.pcap"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--capture takes one link");
}

#[test]
fn runs_on_sets_the_runs_of_every_point_of_a_sweep_and_the_last_match_wins() {
    let _turn = timing_turn();
    let (rows, stderr) = replay(&[
        "--link",
        "lan-1997",
        "--sweep",
        "rtt=2,4",
        "--runs",
        "2",
        "--runs-on",
        "lan-1997=1",
        "--runs-on",
        "lan-1997,rtt=4ms=3",
        "--modes",
        "pipelined",
        "--tests",
        "first",
    ]);
    if !emulated(&rows, &stderr, "lan-1997,rtt=4ms") {
        return;
    }
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["link"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["lan-1997,rtt=2ms", "lan-1997,rtt=4ms"]);
    assert_eq!(
        row(&rows, "lan-1997,rtt=2ms", "pipelined", "first")["runs"],
        1
    );
    assert_eq!(
        row(&rows, "lan-1997,rtt=4ms", "pipelined", "first")["runs"],
        3
    );
}

#[test]
fn the_simulated_time_agrees_with_the_emulated_link_within_a_tolerance() {
    // The simulator's check, as a test: the same visits measured over the emulated Cable link
    // and simulated from the loopback recording. docs/simulation.md has the model's error over
    // every row at idle (a few percent on Cable); here, beside the other test binaries on a
    // loaded runner, a measured median may be late by its scheduling (a clean-clone CI run
    // measured h2c's first visit at 546 ms against 395 at idle), never early by much, so
    // the simulated time must lie between 50% and 125% of the measured one (a model that
    // forgot a round trip of the page's 43 requests, or the server's buffering, is far outside).
    // `pipelined`'s first visit is left out: the link's queue overflows at the end of its
    // burst of images, in the model three segments earlier than in the kernel, and the
    // model's losses include the burst's tail, which waits for the retransmission timer
    // (docs/simulation.md lists it among the rows that miss).
    let _turn = timing_turn();
    let (rows, stderr) = replay(&[
        "--link",
        "Cable",
        "--runs",
        "3",
        "--modes",
        "persistent,h2c,https-persistent",
    ]);
    if !emulated(&rows, &stderr, "Cable") {
        return;
    }
    for r in rows.iter().filter(|r| r["link"]["name"] == "Cable") {
        let what = format!("{} {}", r["mode"], r["test"]);
        let measured = median(r, &["time", "complete_ms"]);
        let simulated = median(r, &["simulated_time", "complete_ms"]);
        eprintln!("Cable {what}: measured {measured:.1} ms, simulated {simulated:.1} ms");
        assert!(
            (0.5 * measured..=1.25 * measured).contains(&simulated),
            "Cable {what}: simulated {simulated:.1} ms against {measured:.1} ms measured"
        );
    }
}
