use super::*;

fn paths(dir: &Path, force: bool) -> OutputPaths {
    OutputPaths {
        dir: dir.to_path_buf(),
        force,
    }
}

/// A site directory and an output location beside it, in one temporary directory.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("mysite");
    fs::create_dir(&site).unwrap();
    fs::write(site.join("index.html"), "<p>x").unwrap();
    let out = tmp.path().join("out");
    (tmp, site, out)
}

fn staged_run(out: &Path, site: &Path, plan: Plan, force: bool, label: &str) -> Result<()> {
    let t = Transaction::begin(&paths(out, force), plan.clone(), &[site])?;
    for name in &plan.writes {
        if *name == SITE {
            fs::create_dir(t.path(SITE)).unwrap();
            fs::write(t.path(SITE).join("index.html"), label).unwrap();
        } else {
            t.write(name, label.as_bytes())?;
        }
    }
    t.commit()
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn output_inside_the_site_is_refused() {
    let (_tmp, site, _) = setup();
    for inside in [site.join("out"), site.clone(), site.join("a/../b")] {
        assert!(matches!(
            check(&paths(&inside, true), &Plan::audit(false), &[&site]),
            Err(Error::OutputInsideSite { .. })
        ));
    }
}

#[test]
fn output_beside_the_site_is_fine_and_the_default_is_named_after_the_site() {
    let (_tmp, site, out) = setup();
    check(&paths(&out, false), &Plan::audit(false), &[&site]).unwrap();
    let default = OutputPaths::for_site(&site, None, false);
    assert_eq!(default.dir, Path::new("out/mysite"));
    assert_eq!(default.site(), Path::new("out/mysite/site"));
}

#[test]
fn an_output_whose_site_entry_is_the_input_is_refused_even_with_force() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join(SITE);
    fs::create_dir(&site).unwrap();
    let err = check(&paths(tmp.path(), true), &Plan::rewrite(), &[&site]).unwrap_err();
    assert!(matches!(err, Error::OutputContainsSite { .. }), "{err}");
}

#[test]
fn files_devices_and_paths_under_files_are_not_output_directories() {
    let (tmp, site, _) = setup();
    let file = tmp.path().join("notes.txt");
    fs::write(&file, "mine").unwrap();
    let plan = Plan::audit(false);
    let err = check(&paths(&file, true), &plan, &[&site]).unwrap_err();
    assert!(err.to_string().contains("this is a file"), "{err}");
    let err = check(&paths(Path::new("/dev/null"), true), &plan, &[&site]).unwrap_err();
    assert!(err.to_string().contains("character device"), "{err}");
    let under = file.join("a/b");
    let err = check(&paths(&under, true), &plan, &[&site]).unwrap_err();
    assert!(
        matches!(&err, Error::OutputUnderAFile { blocker, .. } if *blocker == file),
        "{err}"
    );
}

#[test]
fn an_entry_webdiet_did_not_write_is_refused_unless_forced() {
    let (_tmp, site, out) = setup();
    fs::create_dir_all(out.join("site/blog")).unwrap();
    fs::write(out.join("site/blog/post.html"), "mine").unwrap();
    let err = check(&paths(&out, false), &Plan::audit(false), &[&site]).unwrap_err();
    assert!(
        matches!(&err, Error::OutputNotOurs { path, .. } if *path == out.join(SITE)),
        "{err}"
    );
    // A dry run does not write the site, so the user's site is no obstacle.
    check(&paths(&out, false), &Plan::audit(true), &[&site]).unwrap();
    check(&paths(&out, true), &Plan::audit(false), &[&site]).unwrap();
}

#[test]
fn a_marker_webdiet_did_not_write_is_refused() {
    let (_tmp, site, out) = setup();
    fs::create_dir(&out).unwrap();
    fs::write(out.join(MARKER), "not json").unwrap();
    let err = check(&paths(&out, false), &Plan::rewrite(), &[&site]).unwrap_err();
    assert!(
        matches!(&err, Error::OutputNotOurs { path, .. } if *path == out.join(MARKER)),
        "{err}"
    );
}

#[test]
fn a_commit_replaces_webdiets_entries_and_leaves_everything_else() {
    let (_tmp, site, out) = setup();
    staged_run(&out, &site, Plan::audit(false), false, "first").unwrap();
    fs::write(out.join("notes.txt"), "mine").unwrap();
    staged_run(&out, &site, Plan::audit(false), false, "second").unwrap();
    assert_eq!(
        fs::read_to_string(out.join("site/index.html")).unwrap(),
        "second"
    );
    assert_eq!(fs::read_to_string(out.join(REPORT_MD)).unwrap(), "second");
    assert_eq!(fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    assert_eq!(
        names(&out),
        [
            MARKER,
            "notes.txt",
            REPORT_HTML,
            REPORT_JSON,
            REPORT_MD,
            SITE
        ]
    );
}

#[test]
fn a_rewrite_removes_the_reports_of_an_older_audit_but_not_a_users() {
    let (_tmp, site, out) = setup();
    staged_run(&out, &site, Plan::audit(false), false, "audit").unwrap();
    staged_run(&out, &site, Plan::rewrite(), false, "rewrite").unwrap();
    assert_eq!(names(&out), [MARKER, REPORT_JSON, SITE]);
    let Found::Ours(marker) = Marker::find(&out) else {
        panic!("no marker")
    };
    assert_eq!(marker.command, "rewrite");
    assert!(!marker.claims(REPORT_MD));

    fs::write(out.join(REPORT_MD), "mine").unwrap();
    staged_run(&out, &site, Plan::rewrite(), false, "again").unwrap();
    assert_eq!(fs::read_to_string(out.join(REPORT_MD)).unwrap(), "mine");
}

#[test]
fn a_dry_run_keeps_the_site_of_an_earlier_run() {
    let (_tmp, site, out) = setup();
    staged_run(&out, &site, Plan::audit(false), false, "real").unwrap();
    staged_run(&out, &site, Plan::audit(true), false, "dry").unwrap();
    assert_eq!(
        fs::read_to_string(out.join("site/index.html")).unwrap(),
        "real"
    );
    assert_eq!(fs::read_to_string(out.join(REPORT_JSON)).unwrap(), "dry");
    let Found::Ours(marker) = Marker::find(&out) else {
        panic!("no marker")
    };
    assert!(marker.claims(SITE), "the old site is still webdiet's");
}

#[test]
fn a_transaction_dropped_before_its_commit_leaves_no_trace() {
    let (tmp, site, _) = setup();
    let out = tmp.path().join("new/deeper/out");
    {
        let t = Transaction::begin(&paths(&out, false), Plan::audit(false), &[&site]).unwrap();
        fs::create_dir(t.path(SITE)).unwrap();
        t.write(REPORT_JSON, b"{}").unwrap();
        assert!(out.is_dir());
    }
    assert!(!tmp.path().join("new").exists(), "created directories stay");

    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("keep.txt"), "mine").unwrap();
    drop(Transaction::begin(&paths(&out, false), Plan::audit(false), &[&site]).unwrap());
    assert_eq!(names(&out), ["keep.txt"]);
}

#[test]
fn a_commit_that_fails_puts_the_old_output_back() {
    let (_tmp, site, out) = setup();
    staged_run(&out, &site, Plan::audit(false), false, "old").unwrap();
    // A directory where the marker goes: the last step of the commit fails.
    fs::remove_file(out.join(MARKER)).unwrap();
    fs::create_dir_all(out.join(MARKER).join("x")).unwrap();
    let err = staged_run(&out, &site, Plan::audit(false), true, "new").unwrap_err();
    assert!(err.to_string().contains(MARKER), "{err}");
    assert_eq!(
        fs::read_to_string(out.join("site/index.html")).unwrap(),
        "old"
    );
    assert_eq!(fs::read_to_string(out.join(REPORT_JSON)).unwrap(), "old");
    assert_eq!(
        names(&out),
        [MARKER, REPORT_HTML, REPORT_JSON, REPORT_MD, SITE],
        "no staging directory is left"
    );
}

#[test]
fn verify_needs_an_empty_directory_or_its_own() {
    let (tmp, site, out) = setup();
    let plan = Plan::verify();
    check(&paths(&out, false), &plan, &[&site]).unwrap();
    fs::create_dir(&out).unwrap();
    check(&paths(&out, false), &plan, &[&site]).unwrap();
    fs::write(out.join("holiday.png"), "mine").unwrap();
    let err = check(&paths(&out, false), &plan, &[&site]).unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
    check(&paths(&out, true), &plan, &[&site]).unwrap();
    prepare_verify_dir(&out).unwrap();
    check(&paths(&out, false), &plan, &[&site]).unwrap();

    let audit_out = tmp.path().join("audit-out");
    staged_run(&audit_out, &site, Plan::audit(false), false, "x").unwrap();
    let err = check(&paths(&audit_out, false), &plan, &[&site]).unwrap_err();
    assert!(err.to_string().contains("webdiet audit"), "{err}");
}

/// A staging directory as a run with `pid` would have left it, its marker unlocked.
fn fake_partial(out: &Path, pid: u32) -> PathBuf {
    let dir = out.join(format!("{PARTIAL_PREFIX}{pid}"));
    fs::create_dir_all(dir.join("site")).unwrap();
    let partial = Owner {
        pid,
        ..Owner::of_this_process()
    };
    fs::write(dir.join(PARTIAL_MARKER), partial.to_json()).unwrap();
    dir
}

#[test]
fn leftovers_of_dead_runs_are_removed_and_those_of_live_ones_kept() {
    if !Path::new("/proc/self/stat").exists() {
        eprintln!("note: no /proc, skipping");
        return;
    }
    let (_tmp, _site, out) = setup();
    fs::create_dir(&out).unwrap();
    // A live run holds the lock on its marker; a dead one's is free, whatever its PID says
    // (here this very process's).
    let live = out.join(format!("{PARTIAL_PREFIX}{}", std::process::id() + 1));
    fs::create_dir(&live).unwrap();
    let _held = crate::scratch::mark(&live).unwrap();
    let gone = fake_partial(&out, std::process::id());
    let foreign = out.join(format!("{PARTIAL_PREFIX}42"));
    fs::create_dir(&foreign).unwrap();
    fs::write(foreign.join("mine.txt"), "not webdiet's").unwrap();
    let empty = out.join(format!("{PARTIAL_PREFIX}43"));
    fs::create_dir(&empty).unwrap();
    let legacy = out.join(".site.partial-77");
    fs::create_dir(&legacy).unwrap();

    let notes = clean_stale(&out);
    assert!(!gone.exists() && !empty.exists());
    assert!(live.exists() && foreign.exists() && legacy.exists());
    let text = notes.join("\n");
    assert!(
        text.contains(&format!("still running (pid {})", std::process::id())),
        "{text}"
    );
    assert!(text.contains("removed"), "{text}");
    assert!(text.contains(".webdiet-partial-42") && text.contains("left alone"));
    assert!(text.contains(".site.partial-77"), "{text}");
}

#[test]
fn leftovers_of_older_webdiets_are_recognised_by_name_only() {
    for name in [".site.partial-12", ".site.old-3", ".report.json.partial-99"] {
        assert!(is_legacy_partial(name), "{name}");
    }
    for name in [
        ".site.partial-",
        ".site.partial-1x",
        ".mine.partial-12",
        "site.old-3",
    ] {
        assert!(!is_legacy_partial(name), "{name}");
    }
}
