//! The batch contract: which shard runs which unit, where the shard index comes from, which
//! units the sample picks, and what names a unit's report.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::*;

fn units(n: usize) -> Vec<Unit> {
    (0..n)
        .map(|i| Unit {
            index: i,
            spec: format!("site-{i}"),
            source: Source::Site(PathBuf::from(format!("site-{i}"))),
        })
        .collect()
}

fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

#[test]
fn every_unit_belongs_to_exactly_one_shard() {
    let list = units(23);
    for count in 1..=7 {
        for unit in &list {
            let owners = (0..count)
                .filter(|&index| Shard { index, count }.runs(unit))
                .count();
            assert_eq!(owners, 1, "{} of {count} shards", unit.spec);
        }
    }
}

#[test]
fn shard_parses_i_of_n_and_refuses_an_index_past_the_count() {
    assert_eq!(Shard::parse("2/3"), Ok(Shard { index: 2, count: 3 }));
    for bad in ["3/3", "1/0", "x/2", "2", "-1/2"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn shard_comes_from_slurm_or_kubernetes_when_not_given() {
    let slurm = env(&[
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
    ]);
    assert_eq!(
        Shard::from_env(None, None, &slurm).unwrap(),
        Shard { index: 1, count: 3 }
    );
    // A rerun of one index: Slurm says the array has one task, --shards says how many.
    let rerun = env(&[
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "1"),
    ]);
    assert_eq!(
        Shard::from_env(None, Some(3), &rerun).unwrap(),
        Shard { index: 1, count: 3 }
    );
    assert!(Shard::from_env(None, None, &rerun).is_err());
    let k8s = env(&[("JOB_COMPLETION_INDEX", "2")]);
    assert_eq!(
        Shard::from_env(None, Some(3), &k8s).unwrap(),
        Shard { index: 2, count: 3 }
    );
    assert!(
        Shard::from_env(None, None, &k8s).is_err(),
        "k8s needs --shards"
    );
    let explicit = Shard { index: 0, count: 2 };
    assert_eq!(
        Shard::from_env(Some(explicit), None, &slurm).unwrap(),
        explicit
    );
    assert_eq!(
        Shard::from_env(None, None, &env(&[])).unwrap(),
        Shard::WHOLE
    );
    assert!(Shard::from_env(None, None, &env(&[("JOB_COMPLETION_INDEX", "x")])).is_err());
}

#[test]
fn the_sample_depends_on_the_seed_and_the_units_not_their_order() {
    let list = units(50);
    let spec = |seed| SampleSpec {
        size: 10,
        seed,
        link: "Cable".into(),
    };
    let picked = spec(7).pick(&list);
    assert_eq!(picked.len(), 10);
    assert_eq!(picked, spec(7).pick(&list));
    assert_ne!(picked, spec(8).pick(&list));
    let mut reversed = list.clone();
    reversed.reverse();
    let specs = |list: &[Unit], picked: &std::collections::BTreeSet<usize>| {
        let mut s: Vec<String> = list
            .iter()
            .filter(|u| picked.contains(&u.index))
            .map(|u| u.spec.clone())
            .collect();
        s.sort();
        s
    };
    assert_eq!(
        specs(&list, &picked),
        specs(&reversed, &spec(7).pick(&reversed))
    );
    assert_eq!(
        SampleSpec {
            size: 99,
            ..spec(1)
        }
        .pick(&list)
        .len(),
        50
    );
}

#[test]
fn a_units_report_name_changes_with_the_unit_and_with_the_settings() {
    let list = units(2);
    let mut a = Settings::default();
    a.0.insert("image".into(), "effort fast".into());
    let mut b = a.clone();
    b.0.insert("image".into(), "effort max".into());
    let (fa, fb) = (a.fingerprint(), b.fingerprint());
    assert_ne!(unit_digest(&list[0], &fa), unit_digest(&list[1], &fa));
    assert_ne!(unit_digest(&list[0], &fa), unit_digest(&list[0], &fb));
    assert_eq!(unit_digest(&list[0], &fa), unit_digest(&list[0], &fa));
}

#[test]
fn the_list_skips_comments_and_blank_lines_and_refuses_a_unit_twice() {
    let tmp = std::env::temp_dir().join(format!("webdiet-list-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let list = tmp.join("list");
    std::fs::write(&list, "# sites\n\na\n  b  \n").unwrap();
    let read = read_list(&list).unwrap();
    assert_eq!(
        read.iter()
            .map(|u| (u.index, u.spec.as_str()))
            .collect::<Vec<_>>(),
        [(0, "a"), (1, "b")]
    );
    assert_eq!(read[1].source, Source::Site(tmp.join("b")));
    std::fs::write(&list, "a\nb\na\n").unwrap();
    let err = read_list(&list).unwrap_err().to_string();
    assert!(err.contains("line 3") && err.contains("line 1"), "{err}");
    std::fs::write(&list, "# nothing\n").unwrap();
    assert!(read_list(&list).is_err());
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn a_line_naming_web_archives_is_an_archive_unit() {
    let tmp = std::env::temp_dir().join(format!("webdiet-list-archives-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let list = tmp.join("list");
    std::fs::write(
        &list,
        "crawl.wacz\na.warc.gz + b.warc.gz\nsite + b.warc.gz\n",
    )
    .unwrap();
    let read = read_list(&list).unwrap();
    assert_eq!(
        read[0].source,
        Source::Archive(vec![tmp.join("crawl.wacz")])
    );
    assert_eq!(
        read[1].source,
        Source::Archive(vec![tmp.join("a.warc.gz"), tmp.join("b.warc.gz")])
    );
    // Not all archives: a directory of that (odd) name.
    assert_eq!(read[2].source, Source::Site(tmp.join("site + b.warc.gz")));
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn units_done_before_count_for_neither_the_speed_nor_the_time_left() {
    let skipped = run::Tick {
        finished: 118,
        of: 200,
        audited: 0,
        bytes: 0,
    };
    let line = command::speed(&skipped, 0.5);
    assert!(!line.contains("MB/s") && !line.contains("ETA"), "{line}");
    assert!(line.starts_with("118 done before"), "{line}");
    let after = run::Tick {
        finished: 120,
        of: 200,
        audited: 2,
        bytes: 4_000_000,
    };
    assert_eq!(
        command::speed(&after, 2.0),
        "2.00 MB/s, ETA 80 s",
        "2 units in 2 s: 80 left take 80 s"
    );
}
