//! The merge is associative and commutative, keeps every raw row, and refuses results of
//! other options or two different results for one site.

use proptest::prelude::*;

use super::*;
use crate::batch::{LinkTime, VisitFigures, VisitPair};

fn row(i: usize, bytes: u64, saved: i64, packets: (u64, u64), ms: Option<(f64, f64)>) -> SiteRow {
    SiteRow {
        unit: format!("site-{i}"),
        name: format!("site-{i}"),
        pages: 1 + i as u64 % 3,
        files: 2 + i as u64 % 5,
        bytes,
        saved_bytes: saved,
        deflate_saved_bytes: Some(saved / 2),
        visit: Some(VisitPair {
            mode: crate::replay::Mode::reference(),
            before: VisitFigures {
                bytes: bytes + 500,
                requests: 5,
                packets: packets.0,
            },
            after: VisitFigures {
                bytes: (bytes as i64 + 500 - saved).max(0) as u64,
                requests: 4,
                packets: packets.1,
            },
        }),
        link_time: ms.map(|(b, a)| LinkTime {
            link: "Cable".into(),
            before_ms: b,
            after_ms: a,
        }),
        problems: i as u64 % 2,
        seconds: 0.5,
    }
}

/// A collection of the batch "fp" holding `rows` and `failed`, every unit sampled.
fn collection(rows: Vec<SiteRow>, failed: Vec<usize>) -> Collection {
    let mut c = Collection {
        kind: KIND.into(),
        schema_version: SCHEMA_VERSION,
        fingerprint: "fp".into(),
        sample: Some(crate::batch::SampleSpec {
            size: 1000,
            seed: 3,
            link: "Cable".into(),
        }),
        ..Collection::default()
    };
    for r in rows {
        let digest = format!("d-{}", r.unit);
        c.units.insert(digest.clone(), r.unit.clone());
        c.sampled.push(digest.clone());
        c.rows.insert(digest, r);
    }
    for i in failed {
        let digest = format!("d-failed-{i}");
        c.units.insert(digest.clone(), format!("failed-{i}"));
        c.failures.insert(
            digest,
            Failure {
                unit: format!("failed-{i}"),
                reason: "no such directory".into(),
            },
        );
    }
    c.sampled.sort();
    c.finished()
}

fn rows_strategy() -> impl Strategy<Value = Vec<SiteRow>> {
    prop::collection::vec(
        (
            1u64..1_000_000,
            -5_000i64..900_000,
            (1u64..500, 1u64..500),
            prop::option::of((1.0f64..5000.0, 1.0f64..5000.0)),
        ),
        0..8,
    )
    .prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (bytes, saved, packets, ms))| {
                row(i, bytes, saved.min(bytes as i64), packets, ms)
            })
            .collect()
    })
}

/// Three collections of disjoint sites (and failures), as three shards would make.
fn three() -> impl Strategy<Value = (Collection, Collection, Collection)> {
    (rows_strategy(), rows_strategy(), rows_strategy(), 0usize..3).prop_map(|(a, b, c, f)| {
        let rename = |rows: Vec<SiteRow>, shard: usize| {
            rows.into_iter()
                .map(|mut r| {
                    r.unit = format!("{}-of-{shard}", r.unit);
                    r
                })
                .collect::<Vec<_>>()
        };
        (
            collection(rename(a, 0), (0..f).collect()),
            collection(rename(b, 1), vec![]),
            collection(rename(c, 2), vec![7]),
        )
    })
}

proptest! {
    #[test]
    fn merge_is_associative_and_commutative((a, b, c) in three()) {
        let left = a.clone().merge(b.clone()).unwrap().merge(c.clone()).unwrap();
        let right = a.clone().merge(b.clone().merge(c.clone()).unwrap()).unwrap();
        let flat = Collection::default().merge(a.clone()).unwrap()
            .merge(b.clone()).unwrap().merge(c.clone()).unwrap();
        let swapped = c.clone().merge(a.clone()).unwrap().merge(b.clone()).unwrap();
        prop_assert_eq!(&left, &right);
        prop_assert_eq!(&left, &flat);
        prop_assert_eq!(&left, &swapped);
    }

    #[test]
    fn runs_of_one_batch_merge_the_same_in_any_grouping(
        seconds in prop::collection::vec((0.0f64..10.0, 1.0f64..5000.0), 3),
    ) {
        // The same two units in three runs, each run timed differently.
        let runs: Vec<Collection> = seconds
            .iter()
            .map(|&(s, ms)| {
                let rows = (0..2)
                    .map(|i| {
                        let mut r = row(i, 1000, 100, (10, 8), Some((ms, ms / 2.0)));
                        r.seconds = s + i as f64;
                        r
                    })
                    .collect();
                collection(rows, vec![])
            })
            .collect();
        let (a, b, c) = (&runs[0], &runs[1], &runs[2]);
        let left = a.clone().merge(b.clone()).unwrap().merge(c.clone()).unwrap();
        let right = a.clone().merge(b.clone().merge(c.clone()).unwrap()).unwrap();
        let swapped = c.clone().merge(a.clone()).unwrap().merge(b.clone()).unwrap();
        prop_assert_eq!(&left, &right);
        prop_assert_eq!(&left, &swapped);
        prop_assert_eq!(left.rows.len(), 2);
    }

    #[test]
    fn the_summary_is_the_sum_of_the_sites_and_keeps_every_row((a, b, c) in three()) {
        let all = a.clone().merge(b.clone()).unwrap().merge(c.clone()).unwrap();
        prop_assert_eq!(all.rows.len(), a.rows.len() + b.rows.len() + c.rows.len());
        let s = &all.summary;
        prop_assert_eq!(s.sites as usize, all.rows.len());
        prop_assert_eq!(s.site_bytes.before, all.rows.values().map(|r| r.bytes).sum::<u64>());
        prop_assert_eq!(s.site_bytes.histogram.counts.iter().sum::<u64>(), s.sites);
        prop_assert_eq!(s.packets.histogram.counts.iter().sum::<u64>(), s.sites);
        prop_assert_eq!(s.site_bytes.max_saved, all.rows.values().map(|r| r.saved_bytes).max());
        prop_assert_eq!(s.site_bytes.min_saved, all.rows.values().map(|r| r.saved_bytes).min());
    }
}

#[test]
fn merging_a_collection_with_itself_changes_nothing() {
    let a = collection(
        vec![row(0, 1000, 100, (10, 8), Some((500.0, 400.0)))],
        vec![1],
    );
    assert_eq!(a.clone().merge(a.clone()).unwrap(), a);
}

#[test]
fn a_unit_done_in_one_input_is_no_failure_of_another() {
    let done = collection(vec![row(0, 1000, 100, (10, 8), None)], vec![]);
    let mut failed = done.clone();
    let digest = failed.rows.keys().next().unwrap().clone();
    failed.rows.clear();
    failed.failures.insert(
        digest,
        Failure {
            unit: "site-0".into(),
            reason: "killed".into(),
        },
    );
    let failed = failed.finished();
    assert_eq!(failed.missing().len(), 1);
    let both = failed.merge(done.clone()).unwrap();
    assert!(both.missing().is_empty());
    assert_eq!(both, done);
}

#[test]
fn results_of_other_options_or_two_results_for_one_site_do_not_merge() {
    let a = collection(vec![row(0, 1000, 100, (10, 8), None)], vec![]);
    let mut other = a.clone();
    other.fingerprint = "other".into();
    assert!(a.clone().merge(other).is_err());
    let b = collection(vec![row(0, 1000, 200, (10, 8), None)], vec![]);
    assert!(a.merge(b).unwrap_err().to_string().contains("site-0"));
}

#[test]
fn two_runs_of_a_unit_that_differ_only_in_timings_merge_as_one_and_are_named() {
    let first = collection(
        vec![row(0, 1000, 100, (10, 8), Some((500.0, 400.0)))],
        vec![],
    );
    let mut again = row(0, 1000, 100, (10, 8), Some((520.0, 390.0)));
    again.seconds = 0.4;
    let second = collection(vec![again.clone()], vec![]);
    let merged = first.clone().merge(second.clone()).unwrap();
    assert_eq!(merged, second.clone().merge(first.clone()).unwrap());
    assert_eq!(merged.rows.len(), 1);
    // The run that took less wall-clock time is kept, whole.
    assert_eq!(merged.rows.values().next(), Some(&again));
    assert_eq!(merged.reruns.len(), 1);
    let note = reruns_note(&merged).unwrap();
    assert!(
        note.contains("site-0") && note.contains("1 unit ran"),
        "{note}"
    );
    for out in [
        super::terminal::render(&merged, std::path::Path::new("c.json")),
        super::markdown::render(&merged),
        super::html::render(&merged),
    ] {
        assert!(out.contains("ran more than once"), "{out}");
    }
    // Merging either run again changes nothing, and a single run names no rerun.
    assert_eq!(merged.clone().merge(first.clone()).unwrap(), merged);
    assert_eq!(reruns_note(&first), None);
}

#[test]
fn savings_fall_in_fixed_bins_from_a_grown_site_to_all_saved() {
    assert_eq!(Histogram::bin(100, -1), 0);
    assert_eq!(Histogram::bin(100, 0), 1);
    assert_eq!(Histogram::bin(100, 9), 1);
    assert_eq!(Histogram::bin(100, 10), 2);
    assert_eq!(Histogram::bin(100, 100), 10);
    assert_eq!(Histogram::bin(0, 0), 0);
    assert_eq!(Histogram::labels().len(), Histogram::BINS);
}

#[test]
fn the_sample_estimate_scales_the_mean_to_every_unit_of_the_list() {
    let c = collection(
        vec![
            row(0, 1000, 100, (10, 8), Some((500.0, 400.0))),
            row(1, 1000, 100, (10, 8), Some((600.0, 400.0))),
        ],
        vec![0, 1],
    );
    let e = c.sample_estimate.clone().unwrap();
    assert_eq!((e.population, e.timed, e.seed), (4, 2, 3));
    let mean = e.mean_saved_ms.unwrap();
    assert!((mean - 150.0).abs() < 1e-9);
    assert!((e.total_saved_s.unwrap() - mean * 4.0 / 1000.0).abs() < 1e-9);
    let (lo, hi) = e.mean_saved_ms_ci95.unwrap();
    assert!(lo <= mean && mean <= hi);
}

#[test]
fn every_renderer_names_the_failures_and_the_largest_saving() {
    let c = collection(
        vec![
            row(0, 1000, 100, (10, 8), None),
            row(1, 5000, 2500, (40, 20), None),
        ],
        vec![4],
    );
    let text = super::terminal::render(&c, std::path::Path::new("collection.json"));
    let md = super::markdown::render(&c);
    let html = super::html::render(&c);
    for out in [&text, &md, &html] {
        assert!(out.contains("failed-4"), "{out}");
        let (big, small) = (out.find("site-1").unwrap(), out.find("site-0").unwrap());
        assert!(big < small, "largest saving first:\n{out}");
    }
}
