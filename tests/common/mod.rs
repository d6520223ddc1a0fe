//! Helpers shared by the integration tests: building small sites on disk and finding
//! `../shared` (present in CI, maybe not on a user's machine).

#![allow(dead_code)]

pub mod archives;
pub mod encodings;
pub mod modern;
pub mod rawgif;
pub mod sheets;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// Whether this is a CI run (`CI=true`): there a missing tool, corpus or capability fails the
/// test instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether tcpdump is here; `false` means "skip" (with a note). With CI=true it must be.
pub fn tcpdump_available() -> bool {
    let found = std::process::Command::new("tcpdump")
        .arg("--version")
        .output()
        .is_ok();
    if !found {
        assert!(
            !in_ci(),
            "tcpdump is required in CI (Debian package tcpdump)"
        );
        eprintln!("note: tcpdump not installed; capture comparison skipped");
    }
    found
}

/// One turn at the machine's clock, held by every test that times something or counts packets
/// on a link (emulated links, captures, Chromium's page loads, the replay's kernel counts).
///
/// On 2 cores, two emulators (each with real-time threads) or a capture beside a replay would
/// measure each other. A `static Mutex` serialises only the threads of one test binary, and
/// nothing under nextest, which runs every test in its own process; this is an advisory
/// `flock` on one file in the temporary directory, so it serialises threads, test binaries and
/// processes alike. The lock is released when the guard is dropped (or the process dies).
pub fn timing_turn() -> TimingTurn {
    let path = std::env::temp_dir().join("webdiet-timing-tests.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("cannot open the timing lock {}: {e}", path.display()));
    // Called through the trait: `File::lock` is also an inherent method of newer toolchains.
    fs4::FileExt::lock(&file)
        .unwrap_or_else(|e| panic!("cannot lock the timing lock {}: {e}", path.display()));
    TimingTurn { _file: file }
}

/// Held while a timing test runs; see [`timing_turn`].
pub struct TimingTurn {
    _file: std::fs::File,
}

/// GNU time, which the memory tests read peak RSS from.
const TIME: &str = "/usr/bin/time";

/// Whether GNU time (`/usr/bin/time`, Debian's `time` package) is installed: a memory test
/// checks this before its setup, and skips with a note when not; in CI that fails the test.
pub fn gnu_time() -> bool {
    let there = Path::new(TIME).is_file();
    if !there {
        assert!(
            !in_ci(),
            "CI=true but {TIME} is missing (apt-get install time)"
        );
        eprintln!("note: {TIME} is not installed, skipping a memory test");
    }
    there
}

/// Runs `webdiet ARGS` under GNU time (`/usr/bin/time -v`), which must succeed: its standard
/// error, GNU time's report last. `None` when GNU time is missing ([`gnu_time`]).
fn time_v<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Option<String> {
    if !gnu_time() {
        return None;
    }
    let out = std::process::Command::new(TIME)
        .arg("-v")
        .arg(webdiet().get_program())
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    Some(stderr)
}

/// One figure of GNU time's report (`Maximum resident set size (kbytes)`…).
fn time_figure<T: std::str::FromStr>(stderr: &str, name: &str) -> T {
    stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix(name)?.strip_prefix(": "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in: {stderr}"))
}

/// Runs `webdiet ARGS` under GNU time (`/usr/bin/time -v`), which must succeed: its peak
/// resident memory in KiB and its standard error. `None` when GNU time is missing
/// ([`gnu_time`]).
pub fn peak_kib<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Option<(u64, String)> {
    let stderr = time_v(args)?;
    let peak = time_figure(&stderr, "Maximum resident set size (kbytes)");
    Some((peak, stderr))
}

/// Runs `webdiet ARGS` under GNU time, which must succeed: the CPU time it took, user and
/// system, in seconds (to the hundredth). `None` when GNU time is missing ([`gnu_time`]).
pub fn cpu_seconds<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Option<f64> {
    let stderr = time_v(args)?;
    let user: f64 = time_figure(&stderr, "User time (seconds)");
    let system: f64 = time_figure(&stderr, "System time (seconds)");
    Some(user + system)
}

/// The `webdiet` binary under test.
pub fn webdiet() -> Command {
    Command::cargo_bin("webdiet").expect("the webdiet binary is built for integration tests")
}

/// Writes `files` (path → bytes) under `root`, creating directories.
pub fn write_site(root: &Path, files: &[(&str, &[u8])]) {
    for (path, bytes) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
}

/// A valid 1×1 GIF89a with a transparent pixel (the classic spacer), 43 bytes.
pub const SPACER_GIF: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xff, 0xff, 0xff, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b,
];

/// A still `w × h` GIF: `pixels` are palette indices (`palette` is RGB triples), with
/// `transparent` as the transparent index if given.
pub fn still_gif(
    w: u16,
    h: u16,
    palette: &[u8],
    transparent: Option<u8>,
    pixels: Vec<u8>,
) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w, h, palette).unwrap();
        let frame = gif::Frame {
            width: w,
            height: h,
            transparent,
            buffer: pixels.into(),
            ..gif::Frame::default()
        };
        enc.write_frame(&frame).unwrap();
    }
    out
}

/// A 64×48, 16-colour GIF that converts to a smaller PNG; `seed` makes each one different.
pub fn seeded_gif(seed: usize) -> Vec<u8> {
    let palette: Vec<u8> = (0..16u8)
        .flat_map(|i| [i * 16, 255 - i * 8, i * 5])
        .collect();
    let pixels: Vec<u8> = (0..64 * 48)
        .map(|i| (((i % 64) / 4 + (i / 64) / 3 + seed) % 16) as u8)
        .collect();
    still_gif(64, 48, &palette, None, pixels)
}

/// A corpus from `../shared/corpora`, or `None` (with a note) when it is absent on a user's
/// machine. In CI (`CI=true`) a missing corpus fails the test.
/// `WEBDIET_SHARED` names another place for `shared/` (a git worktree elsewhere).
pub fn shared_corpus(name: &str) -> Option<PathBuf> {
    let shared = std::env::var_os("WEBDIET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = shared.join("corpora").join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    if in_ci() {
        panic!(
            "{} is missing: CI must have ../shared next to the repository",
            dir.display()
        );
    }
    eprintln!("note: skipping, {} is not present", dir.display());
    None
}

/// The package corpus's root (`.ci/package-corpus.sh`: real sheets and scripts of Debian
/// packages; `WEBDIET_PACKAGE_CORPUS` names another place), or `None` (with a note) when it has
/// not been fetched on a user's machine. In CI (`CI=true`) a missing corpus fails the test.
pub fn package_corpus() -> Option<PathBuf> {
    let root = sheets::package_root();
    if root.is_dir() {
        return Some(root);
    }
    assert!(
        !in_ci(),
        "CI=true but the package corpus is missing at {}: .ci/run fetches it with \
         .ci/package-corpus.sh",
        root.display()
    );
    eprintln!(
        "note: skipping, {} is not present (bash .ci/package-corpus.sh makes it)",
        root.display()
    );
    None
}

/// The default corpus shipped in the repository.
pub fn microscape() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/microscape")
}

/// Runs `webdiet analyze DIR --json` and parses the output.
pub fn analyze_json(dir: &Path) -> serde_json::Value {
    let out = webdiet()
        .args(["analyze", "--json"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "analyze {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("analyze --json prints JSON")
}

/// Whether Chromium is here; `false` means "skip". With CI=true a missing browser fails.
pub fn chromium_available() -> bool {
    use webdiet::chromium::{self, RenderOptions};
    let found = chromium::find_chromium(&RenderOptions::default()).is_ok();
    if !found {
        assert!(
            !in_ci(),
            "CI=true but Chromium is missing: {}",
            webdiet::error::CHROMIUM_INSTALL_HINT
        );
        eprintln!("note: Chromium not installed, skipping a render test");
    }
    found
}
