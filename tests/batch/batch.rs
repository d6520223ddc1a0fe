//! `webdiet batch` and `webdiet merge` end to end: shards of one list merge to what one
//! process makes (the Kubernetes Indexed Job contract: `JOB_COMPLETION_INDEX`), a failed unit
//! fails alone and a rerun completes the collection, and the output rules hold.

use crate::common;

use std::path::{Path, PathBuf};

use common::{microscape, seeded_gif, webdiet, write_site};
use predicates::prelude::*;
use webdiet::merge::Collection;

/// Five small sites of our own, plus the default corpus: the list's units.
fn sites(root: &Path) -> PathBuf {
    let mut lines = Vec::new();
    for i in 0..5 {
        let name = format!("site-{i}");
        let gif = seeded_gif(i);
        let page = format!(
            "<html><body bgcolor=\"#ffffff\"><center><font color=red size=+{}>site {i}</font>\
             </center><img src=\"pic.gif\" width=64 height=48></body></html>\n",
            i % 3
        );
        write_site(
            &root.join(&name),
            &[("index.html", page.as_bytes()), ("pic.gif", &gif)],
        );
        lines.push(name);
    }
    lines.push(microscape().display().to_string());
    let list = root.join("sites.txt");
    std::fs::write(&list, lines.join("\n") + "\n").unwrap();
    list
}

fn batch(list: &Path, out: &Path) -> assert_cmd::Command {
    let mut cmd = webdiet();
    cmd.arg("batch").arg(list).arg("--out").arg(out);
    cmd.env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("SLURM_ARRAY_TASK_COUNT")
        .env_remove("JOB_COMPLETION_INDEX");
    cmd
}

fn merge(dirs: &[&Path], out: &Path) -> assert_cmd::Command {
    let mut cmd = webdiet();
    cmd.arg("merge").args(dirs).arg("--out").arg(out);
    cmd
}

fn collection(out: &Path) -> Collection {
    serde_json::from_slice(&std::fs::read(out.join("collection.json")).unwrap()).unwrap()
}

#[test]
fn shards_from_job_completion_index_merge_to_the_report_of_one_process() {
    let tmp = tempfile::tempdir().unwrap();
    let list = sites(tmp.path());
    let (whole, sharded) = (tmp.path().join("whole"), tmp.path().join("sharded"));
    batch(&list, &whole).assert().success();
    for index in 0..3 {
        batch(&list, &sharded)
            .args(["--shards", "3"])
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .assert()
            .success()
            .stderr(predicate::str::contains(format!(
                "shard {index}/3: 2 units"
            )));
    }
    let units = std::fs::read_dir(sharded.join("units")).unwrap().count();
    assert_eq!(units, 6, "one report per unit, nothing else left in units/");
    let (one, three) = (tmp.path().join("m1"), tmp.path().join("m3"));
    merge(&[&whole], &one).assert().success();
    merge(&[&sharded], &three).assert().success();
    let (one, three) = (collection(&one), collection(&three));
    assert_eq!(one.rows.len(), 6);
    assert!(one.summary.packets.sites == 6 && one.summary.packets.before > 0);
    assert_eq!(one.without_timings(), three.without_timings());
}

#[test]
fn a_failed_unit_fails_alone_merge_names_it_and_a_rerun_completes_the_collection() {
    let tmp = tempfile::tempdir().unwrap();
    let list = sites(tmp.path());
    let text = std::fs::read_to_string(&list).unwrap();
    std::fs::write(&list, format!("{text}later\n")).unwrap();
    let out = tmp.path().join("out");
    batch(&list, &out)
        .arg("--no-replay")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unit later:"))
        .stderr(predicate::str::contains("6 done now"));
    let merged = tmp.path().join("merged");
    merge(&[&out], &merged)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unit later:"))
        .stderr(predicate::str::contains("--allow-partial"));
    assert!(!merged.exists(), "a refused merge writes nothing");
    merge(&[&out], &merged)
        .arg("--allow-partial")
        .assert()
        .success()
        .stdout(predicate::str::contains("later"));
    let md = std::fs::read_to_string(merged.join("collection.md")).unwrap();
    assert!(md.contains("`later`"), "{md}");

    write_site(
        &tmp.path().join("later"),
        &[("index.html", b"<html><center>late</center></html>")],
    );
    batch(&list, &out)
        .arg("--no-replay")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "1 done now, 6 done before, 0 failed",
        ));
    merge(&[&out], &merged).assert().success();
    let all = collection(&merged);
    assert!(all.missing().is_empty());
    assert_eq!(all.rows.len(), 7);
}

#[test]
fn batch_refuses_an_output_inside_a_site_and_another_list_in_the_same_output() {
    let tmp = tempfile::tempdir().unwrap();
    let list = sites(tmp.path());
    batch(&list, &tmp.path().join("site-0/out"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("site-0"));
    let out = tmp.path().join("out");
    let short = tmp.path().join("short.txt");
    std::fs::write(&short, "site-0\n").unwrap();
    batch(&short, &out).arg("--no-replay").assert().success();
    batch(&list, &out)
        .arg("--no-replay")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("another list or other options"));
    batch(&short, &out)
        .args(["--no-replay", "--effort", "fast"])
        .assert()
        .code(2);
}

#[test]
fn batch_refuses_to_add_to_the_reports_of_another_build() {
    let tmp = tempfile::tempdir().unwrap();
    let list = sites(tmp.path());
    let out = tmp.path().join("out");
    batch(&list, &out).arg("--no-replay").assert().success();
    let manifest = out.join("batch.json");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    let ours = json["tool_version"].as_str().unwrap().to_string();
    assert!(ours.starts_with(env!("CARGO_PKG_VERSION")), "{ours}");
    json["tool_version"] = "0.0.9 (rev 0123456789ab)".into();
    std::fs::write(&manifest, serde_json::to_vec(&json).unwrap()).unwrap();
    batch(&list, &out)
        .arg("--no-replay")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "written by webdiet 0.0.9 (rev 0123456789ab)",
        ))
        .stderr(predicate::str::contains(format!("this is webdiet {ours}")));
}

#[test]
fn merge_refuses_results_of_other_options() {
    let tmp = tempfile::tempdir().unwrap();
    let list = tmp.path().join("list");
    write_site(
        &tmp.path().join("a"),
        &[("index.html", b"<html><p>a</p></html>")],
    );
    std::fs::write(&list, "a\n").unwrap();
    let (fast, max) = (tmp.path().join("fast"), tmp.path().join("max"));
    batch(&list, &fast)
        .args(["--no-replay", "--effort", "fast"])
        .assert()
        .success();
    batch(&list, &max)
        .args(["--no-replay", "--effort", "max"])
        .assert()
        .success();
    merge(&[&fast, &max], &tmp.path().join("m"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("other options"));
}

#[test]
fn a_batch_run_twice_merges_as_one_run_and_the_merge_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let list = tmp.path().join("list");
    for name in ["a", "b"] {
        let page = format!("<html><center><font color=red>{name}</font></center></html>");
        write_site(&tmp.path().join(name), &[("index.html", page.as_bytes())]);
    }
    std::fs::write(&list, "a\nb\n").unwrap();
    let (first, again) = (tmp.path().join("first"), tmp.path().join("again"));
    for out in [&first, &again] {
        batch(&list, out).arg("--no-replay").assert().success();
    }
    // Same units, same settings: the rows differ in their wall-clock seconds only.
    let (one, two) = (
        Collection::read(&first).unwrap(),
        Collection::read(&again).unwrap(),
    );
    assert_eq!(one.without_timings(), two.without_timings());
    assert_ne!(one.rows, two.rows, "two runs took exactly the same time");
    let (merged, alone) = (tmp.path().join("merged"), tmp.path().join("alone"));
    merge(&[&first, &again], &merged)
        .assert()
        .success()
        .stderr(predicate::str::contains("2 units ran more than once"));
    merge(&[&first], &alone)
        .assert()
        .success()
        .stderr(predicate::str::contains("more than once").not());
    let both = collection(&merged);
    assert_eq!(both.rows.len(), 2);
    assert_eq!(both.reruns.len(), 2);
    assert_eq!(both.without_timings().rows, one.without_timings().rows);
    let md = std::fs::read_to_string(merged.join("collection.md")).unwrap();
    assert!(md.contains("ran more than once"), "{md}");
}

#[test]
fn the_sample_is_recorded_with_its_seed_and_names_the_same_units_from_every_shard() {
    let tmp = tempfile::tempdir().unwrap();
    let list = sites(tmp.path());
    let manifest = |out: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(out.join("batch.json")).unwrap()).unwrap()
    };
    let sampled = |m: &serde_json::Value| -> Vec<String> {
        m["units"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| u["sampled"] == true)
            .map(|u| u["unit"].as_str().unwrap().to_string())
            .collect()
    };
    // Two shards of six, one unit each: the sample they record is the same (it does not
    // depend on the shard), with its seed.
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for (out, shard) in [(&a, "0/6"), (&b, "1/6")] {
        batch(&list, out)
            .args(["--no-replay", "--shard", shard])
            .args([
                "--measure-sample",
                "2",
                "--seed",
                "42",
                "--sample-link",
                "Cable",
            ])
            .assert()
            .code(predicate::in_iter([0, 1]));
    }
    let (ma, mb) = (manifest(&a), manifest(&b));
    assert_eq!(ma["sample"]["seed"], 42);
    assert_eq!(sampled(&ma).len(), 2);
    assert_eq!(sampled(&ma), sampled(&mb));
    webdiet()
        .args(["batch", "--measure-sample", "2"])
        .arg(&list)
        .arg("--out")
        .arg(tmp.path().join("c"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--seed"));
}

#[test]
fn the_kubernetes_manifest_runs_the_contract_above() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/k8s");
    let job = std::fs::read_to_string(dir.join("indexed-job.yaml")).unwrap();
    let value = |key: &str| -> String {
        job.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .unwrap_or_else(|| panic!("indexed-job.yaml has no {key}"))
            .trim()
            .to_string()
    };
    assert_eq!(value("completionMode:"), "Indexed");
    assert_eq!(value("restartPolicy:"), "Never");
    assert!(value("backoffLimitPerIndex:").parse::<u32>().is_ok());
    let args: Vec<&str> = job
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .map(|a| a.trim_matches('"'))
        .collect();
    let at = |arg: &str| args.iter().position(|a| *a == arg).unwrap();
    assert_eq!(
        &args[at("webdiet")..at("webdiet") + 2],
        ["webdiet", "batch"]
    );
    assert_eq!(args[at("--shards") + 1], value("completions:"));
    assert!(job.contains("/dev/net/tun") && job.contains("ReadWriteMany"));
    let merge = std::fs::read_to_string(dir.join("merge-job.yaml")).unwrap();
    assert!(merge.contains("- merge") && merge.contains(args[at("--out") + 1]));
}

#[test]
fn a_unit_over_its_own_budget_is_done_and_makes_the_shard_exit_1() {
    let tmp = tempfile::tempdir().unwrap();
    write_site(
        &tmp.path().join("a"),
        &[
            ("index.html", b"<html><p>a</p></html>"),
            ("webdiet.toml", b"[budgets]\nmax-requests = 0\n"),
        ],
    );
    write_site(
        &tmp.path().join("b"),
        &[("index.html", b"<html><p>b</p></html>")],
    );
    let list = tmp.path().join("list");
    std::fs::write(&list, "a\nb\n").unwrap();
    let out = tmp.path().join("out");
    batch(&list, &out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "unit a: budget failed: max-requests",
        ))
        .stderr(predicate::str::contains("unit b").not());
    merge(&[&out], &tmp.path().join("m")).assert().success();
}

#[test]
fn merging_an_earlier_merge_with_the_rest_equals_merging_everything_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let list = tmp.path().join("list");
    for name in ["a", "b", "c"] {
        let page = format!("<html><center><font color=red>{name}</font></center></html>");
        write_site(&tmp.path().join(name), &[("index.html", page.as_bytes())]);
    }
    std::fs::write(&list, "a\nb\nc\n").unwrap();
    let (even, odd) = (tmp.path().join("even"), tmp.path().join("odd"));
    batch(&list, &even)
        .args(["--no-replay", "--shard", "0/2"])
        .assert()
        .success();
    batch(&list, &odd)
        .args(["--no-replay", "--shard", "1/2"])
        .assert()
        .success();
    let (first, then, at_once) = (
        tmp.path().join("first"),
        tmp.path().join("then"),
        tmp.path().join("at-once"),
    );
    merge(&[&even], &first)
        .arg("--allow-partial")
        .assert()
        .success()
        .stderr(predicate::str::contains("unit b:"));
    merge(&[&first, &odd], &then).assert().success();
    merge(&[&odd, &even], &at_once).assert().success();
    assert_eq!(collection(&then), collection(&at_once));
    assert_eq!(collection(&then).rows.len(), 3);
}

#[test]
fn a_unit_may_be_a_web_archive_or_several_of_one_site() {
    let tmp = tempfile::tempdir().unwrap();
    let set = common::archives::archives();
    let list = tmp.path().join("archives.txt");
    std::fs::write(
        &list,
        format!(
            "{}\n{} + {}\n",
            set.join("microscape.wacz").display(),
            set.join("microscape.warc.gz").display(),
            set.join("microscape-earlier.warc.gz").display()
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    batch(&list, &out).arg("--no-replay").assert().success();
    let merged = tmp.path().join("merged");
    merge(&[&out], &merged).assert().success();
    let rows = collection(&merged).rows;
    assert_eq!(rows.len(), 2);
    for row in rows.values() {
        // The revisits of the WARC resolve into the file joined to it: the whole site.
        assert_eq!(row.pages, 1, "{}", row.unit);
        assert_eq!(row.name, "microscape", "{}", row.unit);
    }
}

#[test]
fn libdeflate_12_brotli_11_and_zstd_19_are_measured_on_a_sample_and_the_report_says_which_files_were_estimated(
) {
    let tmp = tempfile::tempdir().unwrap();
    // One site of 40 distinct pages: more than a sample's fewest (30) contents.
    let pages: Vec<(String, Vec<u8>)> = (0..40)
        .map(|i| {
            let body = format!("<p>page {i}: {}</p>\n", "old news ".repeat(20 + i * 7));
            (
                format!("p{i}.html"),
                format!("<html><body>{body}</body></html>").into_bytes(),
            )
        })
        .collect();
    let files: Vec<(&str, &[u8])> = pages
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    write_site(&tmp.path().join("site"), &files);
    let list = tmp.path().join("list.txt");
    std::fs::write(&list, "site\n").unwrap();
    let unit = |out: &Path| -> serde_json::Value {
        let dir = out.join("units");
        let file = std::fs::read_dir(&dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap()
    };
    let (sampled, every) = (tmp.path().join("sampled"), tmp.path().join("every"));
    for (out, bytes) in [(&sampled, "1"), (&every, "0")] {
        batch(&list, out)
            .args(["--no-replay", "--estimate-sample", bytes])
            .assert()
            .success();
    }
    let (s, e) = (unit(&sampled), unit(&every));
    let estimate = &s["report"]["compression"]["original"];
    let top = &estimate["top_levels"];
    assert_eq!(top["measured_files"], 30, "the fewest a sample measures");
    assert_eq!(top["seed"], 0);
    let files = estimate["files"].as_array().unwrap();
    let estimated = files.iter().filter(|f| f["estimated"] == true).count();
    assert_eq!(estimated, 10);
    // Measured whole: no sample, no file estimated, and the truth within the sample's interval.
    let exact = &e["report"]["compression"]["original"];
    assert!(exact.get("top_levels").is_none());
    assert!(exact["files"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f.get("estimated").is_none()));
    for (level, margin) in [
        ("brotli11", "brotli11_margin"),
        ("zstd19", "zstd19_margin"),
        ("best", "best_margin"),
    ] {
        let sum: u64 = files.iter().map(|f| f[level].as_u64().unwrap()).sum();
        assert_eq!(estimate["totals"][level].as_u64().unwrap(), sum, "{level}");
        let truth = exact["totals"][level].as_u64().unwrap();
        let margin = top[margin].as_u64().unwrap();
        assert!(
            sum.abs_diff(truth) <= margin,
            "{level}: {sum} ± {margin} against {truth}"
        );
    }
    // Estimated: never above what zlib gave the file itself.
    for f in files.iter().filter(|f| f["estimated"] == true) {
        let best = f["best"].as_u64().unwrap();
        assert!(
            best <= f["deflate6"]
                .as_u64()
                .unwrap()
                .min(f["deflate9"].as_u64().unwrap())
        );
    }
    for level in ["raw", "deflate6", "deflate9", "brotli5", "zstd3"] {
        assert_eq!(exact["totals"][level], estimate["totals"][level], "{level}");
    }
}

/// The unit report of `unit` in a batch's output.
fn unit_report(out: &Path, unit: &str) -> serde_json::Value {
    std::fs::read_dir(out.join("units"))
        .unwrap()
        .map(|e| serde_json::from_slice(&std::fs::read(e.unwrap().path()).unwrap()).unwrap())
        .find(|r: &serde_json::Value| r["unit"] == unit)
        .unwrap_or_else(|| panic!("no report of {unit} in {}", out.display()))
}

#[test]
fn an_image_met_in_an_earlier_unit_is_not_converted_again_and_the_later_unit_gets_the_same_files() {
    let tmp = tempfile::tempdir().unwrap();
    let (shared, own) = (seeded_gif(1), seeded_gif(2));
    let page = b"<html><body><img src=\"shared.gif\"><img src=\"own.gif\"></body></html>\n";
    write_site(
        &tmp.path().join("first"),
        &[
            ("index.html", page),
            ("shared.gif", &shared),
            ("own.gif", &own),
        ],
    );
    let page = b"<html><body><p><img src=\"img/shared.gif\"></body></html>\n";
    write_site(
        &tmp.path().join("second"),
        &[("index.html", page), ("img/shared.gif", &shared)],
    );
    let (both, alone) = (tmp.path().join("both.txt"), tmp.path().join("alone.txt"));
    std::fs::write(&both, "first\nsecond\n").unwrap();
    std::fs::write(&alone, "second\n").unwrap();
    let (together, by_itself) = (tmp.path().join("together"), tmp.path().join("by-itself"));
    batch(&both, &together)
        .arg("--no-replay")
        .assert()
        .success();
    batch(&alone, &by_itself)
        .arg("--no-replay")
        .assert()
        .success();
    let images = |out: &Path| unit_report(out, "second")["report"]["images"].clone();
    let (after_first, alone) = (images(&together), images(&by_itself));
    let row = |rows: &serde_json::Value| rows[0].clone();
    assert_eq!(row(&alone)["path"], "img/shared.gif");
    assert_eq!(row(&alone)["outcome"], "converted");
    assert!(row(&alone)["cpu_millis"].as_f64().unwrap() > 0.0);
    assert_eq!(
        row(&after_first)["cpu_millis"],
        0.0,
        "converted in the first unit"
    );
    let without_time = |mut r: serde_json::Value| {
        r["millis"] = 0.into();
        r["cpu_millis"] = 0.into();
        r
    };
    assert_eq!(without_time(row(&after_first)), without_time(row(&alone)));
    let first = unit_report(&together, "first")["report"]["images"].clone();
    let timed = |rows: &serde_json::Value| {
        rows.as_array()
            .unwrap()
            .iter()
            .filter(|r| r["cpu_millis"].as_f64().unwrap() > 0.0)
            .count()
    };
    assert_eq!(timed(&first), 2, "the first unit converts both of its GIFs");
    assert_eq!(
        collection_of(&together, tmp.path()).rows.len(),
        2,
        "both units are done"
    );
}

fn collection_of(out: &Path, tmp: &Path) -> Collection {
    let merged = tmp.join(format!(
        "merged-{}",
        out.file_name().unwrap().to_string_lossy()
    ));
    merge(&[out], &merged).assert().success();
    collection(&merged)
}

#[test]
fn progress_after_units_done_before_gives_no_speed_until_a_unit_is_audited_now() {
    let tmp = tempfile::tempdir().unwrap();
    let list = tmp.path().join("list");
    for name in ["a", "b"] {
        let page = format!("<html><center><font color=red>{name}</font></center></html>");
        write_site(&tmp.path().join(name), &[("index.html", page.as_bytes())]);
    }
    std::fs::write(&list, "a\nb\nlater\n").unwrap();
    let out = tmp.path().join("out");
    batch(&list, &out).arg("--no-replay").assert().code(1);
    write_site(
        &tmp.path().join("later"),
        &[("index.html", b"<html><center>late</center></html>")],
    );
    let rerun = batch(&list, &out).arg("--no-replay").output().unwrap();
    assert!(rerun.status.success());
    let stderr = String::from_utf8_lossy(&rerun.stderr);
    let line = |n: usize| {
        stderr
            .lines()
            .find(|l| l.starts_with(&format!("webdiet: batch: {n}/3 units")))
            .unwrap_or_else(|| panic!("no progress line {n}/3 in {stderr}"))
    };
    for n in [1, 2] {
        assert!(
            !line(n).contains("MB/s") && !line(n).contains("ETA"),
            "a unit done before is no speed: {}",
            line(n)
        );
        assert!(line(n).contains(&format!("{n} done before")), "{}", line(n));
    }
    assert!(line(3).contains("MB/s, ETA 0 s"), "{}", line(3));
}

#[test]
fn the_docs_and_the_slurm_script_say_a_unit_may_be_a_web_archive() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in ["docs/batch.md", "contrib/slurm/batch.sbatch"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for said in ["WARC", ".wacz", "directory"] {
            assert!(text.contains(said), "{file} does not say {said:?}");
        }
        for stale in ["Today a unit is a site directory", "one directory per line"] {
            assert!(!text.contains(stale), "{file} still says {stale:?}");
        }
    }
}
