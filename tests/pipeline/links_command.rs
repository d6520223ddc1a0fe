//! `webdiet links`: the profile table with sources, what a spec or a sweep resolves to, and
//! exit code 2 with the valid forms for every kind of bad link.

use crate::common;

use common::webdiet;
use predicates::prelude::*;

#[test]
fn links_lists_every_profile_with_its_parameters_and_source() {
    let out = webdiet().arg("links").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "loopback",
        "lan-1997",
        "wan-1997",
        "ppp-1997",
        "spdy-dsl",
        "spdy-cable",
        "Cable",
        "DSL",
        "3GSlow",
        "3GFast",
        "4G",
        "LTE",
        "Edge",
        "2G",
        "Dial",
        "lighthouse-mobile",
    ] {
        assert!(text.contains(name), "{name} is not listed:\n{text}");
    }
    assert!(text.contains("sources:"), "{text}");
    assert!(
        text.contains("T1"),
        "the WAN's chosen bandwidth is explained:\n{text}"
    );
}

#[test]
fn links_json_gives_each_profile_s_numbers() {
    let out = webdiet().args(["links", "--json"]).output().unwrap();
    assert!(out.status.success());
    let links: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let g3 = links
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "3G")
        .expect("3G is listed");
    assert_eq!(g3["down"]["rate_bps"], 1_600_000);
    assert_eq!(g3["up"]["rate_bps"], 768_000);
    assert_eq!(g3["rtt_ms"], 300.0);
    assert_eq!(g3["mtu"], 1500);
    assert!(g3["source"].as_str().unwrap().contains("WebPageTest"));
    let loopback = &links[0];
    assert_eq!(loopback["name"], "loopback");
    assert_eq!(loopback["emulated"], false);
}

#[test]
fn links_shows_what_a_profile_with_overrides_resolves_to() {
    webdiet()
        .args(["links", "spdy-dsl,rtt=100ms,queue=20"])
        .assert()
        .success()
        .stdout(predicate::str::contains("spdy-dsl,rtt=100ms,queue=20"))
        .stdout(predicate::str::contains("100 ms"))
        .stdout(predicate::str::contains("20 packets"))
        .stdout(predicate::str::contains("375 kbit/s"));
}

#[test]
fn links_expands_a_sweep_into_one_link_per_value() {
    let out = webdiet()
        .args(["links", "spdy-cable", "--sweep", "loss=0,0.5,1", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let links: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let losses: Vec<f64> = links
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["down"]["loss_percent"].as_f64().unwrap())
        .collect();
    assert_eq!(losses, [0.0, 0.5, 1.0]);
}

/// `webdiet links ARGS` exits 2, names the reason and lists the valid forms.
fn refused(args: &[&str], reason: &str) {
    webdiet()
        .arg("links")
        .args(args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(reason))
        .stderr(predicate::str::contains("valid forms"))
        .stderr(predicate::str::contains("spdy-cable"));
}

#[test]
fn an_unknown_profile_exits_2() {
    refused(&["5G"], "unknown profile \"5G\"");
}

#[test]
fn a_malformed_custom_link_exits_2() {
    refused(&["down=fast,up=1mbit"], "down=fast");
    refused(&["down=2mbit,colour=red"], "unknown setting");
}

#[test]
fn loss_of_fifty_percent_or_more_exits_2() {
    refused(&["3G,loss=50%"], "loss=50%");
}

#[test]
fn an_rtt_over_ten_seconds_exits_2() {
    refused(&["rtt=11s"], "over 10 s");
}

#[test]
fn a_rate_of_zero_exits_2() {
    refused(&["down=0mbit,up=1mbit"], "rate of 0");
}

#[test]
fn an_empty_trace_file_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.trace");
    std::fs::write(&empty, "").unwrap();
    let spec = format!("trace:{0},{0}", empty.display());
    refused(&[spec.as_str()], "empty");
}

#[test]
fn a_trace_file_that_is_not_monotonic_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("up.trace");
    let bad = dir.path().join("down.trace");
    std::fs::write(&good, "1\n2\n3\n").unwrap();
    std::fs::write(&bad, "1\n5\n4\n").unwrap();
    let spec = format!("trace:{},{}", good.display(), bad.display());
    refused(&[spec.as_str()], "not monotonic");
}

#[test]
fn a_bad_sweep_exits_2() {
    refused(&["3G", "--sweep", "rtt=20,20000"], "over 10 s");
    refused(&["loopback", "--sweep", "rtt=20"], "loopback");
}
