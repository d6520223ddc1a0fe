//! `--link` and `--sweep` parsing: every accepted form, and every refusal with its reason.

use super::*;

fn one(text: &str) -> LinkSpec {
    match parse(text).unwrap().as_slice() {
        [Link::Emulated(spec)] => (**spec).clone(),
        other => panic!("{text}: {other:?}"),
    }
}

fn refused(text: &str) -> String {
    let err = parse(text).expect_err(text);
    let message = err.to_string();
    assert!(
        message.contains("valid forms") && message.contains("spdy-cable"),
        "the message lists the valid forms: {message}"
    );
    err.reason.to_string()
}

#[test]
fn a_profile_name_gives_the_table_s_values_in_any_case() {
    let spec = one("3g");
    assert_eq!(spec.name, "3G");
    assert_eq!(spec.down.rate, Rate::BitsPerSecond(1_600_000));
    assert_eq!(spec.up.rate, Rate::BitsPerSecond(768_000));
    assert_eq!(spec.down.delay + spec.up.delay, Duration::from_millis(300));
    assert_eq!(spec.mtu, 1500);
    assert_eq!(spec.down.loss, Loss::None);
}

#[test]
fn loopback_is_no_emulation() {
    assert_eq!(parse("loopback").unwrap(), vec![Link::Loopback]);
}

#[test]
fn a_custom_link_sets_each_direction() {
    let spec = one("down=2mbit,up=375kbit,rtt=50ms,loss=1%");
    assert_eq!(spec.down.rate, Rate::BitsPerSecond(2_000_000));
    assert_eq!(spec.up.rate, Rate::BitsPerSecond(375_000));
    assert_eq!(spec.up.delay, Duration::from_millis(25));
    assert_eq!(spec.down.delay, Duration::from_millis(25));
    assert_eq!(spec.up.loss, Loss::Bernoulli { rate: 0.01 });
    assert_eq!(spec.down.loss, Loss::Bernoulli { rate: 0.01 });
}

#[test]
fn a_custom_link_may_set_queue_mtu_and_bursts() {
    let spec = one("rate=10mbit,rtt=20,loss=2,burst=3,queue=64000B,mtu=576");
    assert_eq!(spec.up.rate, spec.down.rate);
    assert_eq!(spec.down.queue, QueueLimit::Bytes(64_000));
    assert_eq!(spec.mtu, 576);
    assert_eq!(
        spec.up.loss,
        Loss::Bursts {
            rate: 0.02,
            burst: 3.0
        }
    );
}

#[test]
fn a_direction_without_a_rate_is_not_shaped() {
    let spec = one("rtt=40ms");
    assert_eq!(spec.up.rate, Rate::Unlimited);
    assert_eq!(spec.down.delay, Duration::from_millis(20));
}

#[test]
fn overrides_change_only_the_profile_before_them() {
    let links = parse("lan-1997, 3G,rtt=100ms,loss=0.5%, loopback").unwrap();
    assert_eq!(links.len(), 3);
    let Link::Emulated(lan) = &links[0] else {
        panic!()
    };
    let Link::Emulated(g3) = &links[1] else {
        panic!()
    };
    assert_eq!(lan.down.delay, Duration::from_micros(500));
    assert_eq!(g3.name, "3G,rtt=100ms,loss=0.5%");
    assert_eq!(g3.down.rate, Rate::BitsPerSecond(1_600_000));
    assert_eq!(g3.up.delay, Duration::from_millis(50));
    assert_eq!(g3.up.loss, Loss::Bernoulli { rate: 0.005 });
    assert_eq!(links[2], Link::Loopback);
}

#[test]
fn a_normalised_name_parses_back_to_the_same_link() {
    for text in [
        "spdy-dsl",
        "down=2Mbit,up=375kbit,rtt=50,loss=1",
        "wan-1997,rtt=0.2s,queue=80,mtu=1400",
        "Edge,loss=1.5%,burst=2",
    ] {
        let spec = one(text);
        assert_eq!(one(&spec.name), spec, "{text} → {}", spec.name);
    }
}

#[test]
fn the_default_queue_is_one_bdp_but_at_least_fifty_packets() {
    // 2 Mbit/s × 20 ms = 5 kB: the floor.
    assert_eq!(one("spdy-dsl").down.queue, QueueLimit::Packets(50));
    // 9 Mbit/s × 170 ms = 191,250 bytes = 127.5 packets of 1500 bytes.
    assert_eq!(one("4G").down.queue, QueueLimit::Packets(128));
    // An explicit queue wins.
    assert_eq!(one("4G,queue=10").up.queue, QueueLimit::Packets(10));
}

#[test]
fn traces_give_each_direction_its_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let up = dir.path().join("up.trace");
    let down = dir.path().join("down.trace");
    std::fs::write(&up, "1\n2\n").unwrap();
    std::fs::write(&down, "1\n1\n2\n").unwrap();
    let spec = one(&format!(
        "trace:{},{},rtt=60ms",
        up.display(),
        down.display()
    ));
    let Rate::Trace(trace) = &spec.down.rate else {
        panic!("{:?}", spec.down.rate)
    };
    assert_eq!(trace.opportunities_ms, [1, 1, 2]);
    assert_eq!(spec.up.delay, Duration::from_millis(30));
    // 3 × 1500 bytes every 2 ms.
    assert_eq!(spec.down.rate.mean_bits_per_second(), Some(18_000_000));
}

#[test]
fn an_empty_trace_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "").unwrap();
    let reason = refused(&format!("trace:{0},{0}", empty.display()));
    assert!(reason.contains("empty"), "{reason}");
}

#[test]
fn a_trace_file_that_goes_back_in_time_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good");
    let bad = dir.path().join("bad");
    std::fs::write(&good, "1\n2\n").unwrap();
    std::fs::write(&bad, "1\n3\n2\n").unwrap();
    let reason = refused(&format!("trace:{},{}", good.display(), bad.display()));
    assert!(
        reason.contains("monotonic") && reason.contains("line 3"),
        "{reason}"
    );
}

#[test]
fn a_trace_link_needs_two_files_and_no_rates() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    std::fs::write(&t, "1\n").unwrap();
    assert!(refused(&format!("trace:{}", t.display())).contains("two files"));
    assert!(refused(&format!("trace:{},rtt=5", t.display())).contains("two files"));
    let reason = refused(&format!("trace:{0},{0},down=1mbit", t.display()));
    assert!(reason.contains("trace files"), "{reason}");
}

#[test]
fn a_missing_trace_file_is_named() {
    let reason = refused("trace:/nonexistent/up,/nonexistent/down");
    assert!(reason.contains("/nonexistent/up"), "{reason}");
}

#[test]
fn an_unknown_profile_is_refused() {
    assert!(refused("5G").contains("unknown profile \"5G\""));
}

#[test]
fn malformed_custom_links_are_refused() {
    assert!(refused("down=fast").contains("down=fast"));
    assert!(refused("rtt=50ms,colour=red").contains("unknown setting"));
    assert!(refused("rtt=50parsecs").contains("unknown unit"));
    assert!(refused("3G,,rtt=50").contains("empty item"));
    assert!(refused("loopback,rtt=50").contains("loopback takes no settings"));
    assert!(refused("").contains("empty item"));
}

#[test]
fn loss_of_half_or_more_is_refused() {
    assert!(refused("3G,loss=50%").contains("50%"));
    assert!(parse("3G,loss=49.9%").is_ok());
}

#[test]
fn an_rtt_over_ten_seconds_is_refused() {
    assert!(refused("rtt=10.5s").contains("over 10 s"));
    assert!(parse("rtt=10s").is_ok());
}

#[test]
fn a_rate_of_zero_is_refused() {
    assert!(refused("down=0kbit,up=1mbit").contains("rate of 0"));
}

#[test]
fn a_byte_queue_must_hold_a_packet() {
    assert!(refused("3G,queue=1000B").contains("smaller than one packet"));
}

#[test]
fn an_mtu_outside_its_range_is_refused() {
    assert!(refused("3G,mtu=100").contains("128 to 65535"));
}

#[test]
fn a_sweep_varies_one_setting_over_the_base() {
    let links = sweep("spdy-cable", "rtt=20,40,200").unwrap();
    let rtts: Vec<Duration> = links
        .iter()
        .map(|l| match l {
            Link::Emulated(s) => s.up.delay + s.down.delay,
            Link::Loopback => panic!(),
        })
        .collect();
    assert_eq!(
        rtts,
        [20, 40, 200].map(Duration::from_millis).to_vec(),
        "{links:?}"
    );
    assert_eq!(links[1].name(), "spdy-cable,rtt=40ms");
    let Link::Emulated(s) = &links[2] else {
        panic!()
    };
    assert_eq!(s.down.rate, Rate::BitsPerSecond(4_000_000));
}

#[test]
fn a_loss_sweep_is_in_percent() {
    let links = sweep("spdy-cable", "loss=0,0.5,2.5").unwrap();
    let losses: Vec<f64> = links
        .iter()
        .map(|l| match l {
            Link::Emulated(s) => s.down.loss.rate(),
            Link::Loopback => panic!(),
        })
        .collect();
    assert_eq!(losses, [0.0, 0.005, 0.025]);
}

#[test]
fn a_sweep_over_several_bases_gives_every_pair() {
    assert_eq!(sweep("3G,LTE", "rtt=50,100").unwrap().len(), 4);
}

#[test]
fn bad_sweeps_are_refused() {
    assert!(sweep("loopback", "rtt=20").is_err());
    assert!(sweep("3G", "rtt").is_err());
    assert!(sweep("3G", "rtt=20,,40").is_err());
    let err = sweep("3G", "loss=1,60").unwrap_err();
    assert_eq!(err.flag, "sweep");
    assert_eq!(err.reason, SpecReason::LossTooHigh { value: "60".into() });
    assert!(err.reason.to_string().contains("50%"), "{}", err.reason);
    let err = sweep("nope", "rtt=20").unwrap_err();
    assert_eq!(
        err.reason,
        SpecReason::UnknownProfile {
            token: "nope".into()
        }
    );
    assert!(err.reason.to_string().contains("unknown profile"));
}
