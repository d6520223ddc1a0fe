//! The committed demo site `corpus/microscape/` is exactly what `make-corpus` writes, and it has
//! the shape of the 1997 study's "Microscape" test site.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/microscape")
}

/// Every file under `root`, keyed by its path relative to `root` with `/` separators.
fn read_tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).expect("under root");
                let key = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                let bytes = fs::read(&path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                out.insert(key, bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn regenerating_the_corpus_reproduces_the_committed_files() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let out = dir.path().join("microscape");
    let run = Command::new(env!("CARGO_BIN_EXE_make-corpus"))
        .arg(&out)
        .output()
        .expect("make-corpus runs");
    assert!(
        run.status.success(),
        "make-corpus failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let fresh = read_tree(&out);
    let kept = read_tree(&committed());
    let fresh_names: Vec<&String> = fresh.keys().collect();
    let kept_names: Vec<&String> = kept.keys().collect();
    assert_eq!(
        fresh_names, kept_names,
        "make-corpus writes a different set of files than corpus/microscape/ holds; \
         regenerate it with `cargo run --bin make-corpus -- corpus/microscape`"
    );
    for (name, bytes) in &fresh {
        let old = &kept[name];
        if bytes != old {
            let at = bytes
                .iter()
                .zip(old.iter())
                .take_while(|(a, b)| a == b)
                .count();
            panic!(
                "corpus/microscape/{name} differs from what make-corpus writes \
                 ({} bytes committed, {} bytes generated, first difference at byte {at}); \
                 regenerate it with `cargo run --bin make-corpus -- corpus/microscape`",
                old.len(),
                bytes.len()
            );
        }
    }
}

/// Counts image descriptors, i.e. frames, with the `gif` crate.
fn frame_count(name: &str, bytes: &[u8]) -> usize {
    let mut opts = gif::DecodeOptions::new();
    opts.skip_frame_decoding(true);
    let mut decoder = opts
        .read_info(bytes)
        .unwrap_or_else(|e| panic!("{name} does not decode: {e}"));
    let mut frames = 0;
    while decoder
        .read_next_frame()
        .unwrap_or_else(|e| panic!("{name} frame {frames} does not decode: {e}"))
        .is_some()
    {
        frames += 1;
    }
    frames
}

#[test]
fn the_corpus_has_the_shape_of_the_study_site() {
    let files = read_tree(&committed());
    let page = files
        .get("index.html")
        .expect("corpus/microscape/index.html exists");
    assert!(
        (40_000..=45_000).contains(&page.len()),
        "the page is {} bytes; the study's was 42,919",
        page.len()
    );

    let gifs: Vec<(&String, &Vec<u8>)> =
        files.iter().filter(|(n, _)| n.ends_with(".gif")).collect();
    assert_eq!(gifs.len(), 42, "the study's page inlined 42 GIFs");
    let animated: Vec<&str> = gifs
        .iter()
        .filter(|(n, b)| frame_count(n, b) > 1)
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(
        animated.len(),
        2,
        "2 of the 42 GIFs animate, found {animated:?}"
    );

    let sizes: Vec<usize> = gifs.iter().map(|(_, b)| b.len()).collect();
    let count = |lo: usize, hi: usize| sizes.iter().filter(|&&s| s >= lo && s < hi).count();
    assert_eq!(
        [
            count(0, 1024),
            count(1024, 2048),
            count(2048, 3072),
            count(3072, usize::MAX)
        ],
        [19, 7, 6, 10],
        "the study: 19 GIFs under 1 KB, 7 of 1-2 KB, 6 of 2-3 KB, the other 10 larger"
    );
    let total: usize = sizes.iter().sum();
    assert!(
        (120_000..=130_000).contains(&total),
        "the GIFs total {total} bytes; the study's about 125 KB"
    );
    let (min, max) = (sizes.iter().min().copied(), sizes.iter().max().copied());
    assert!(
        min >= Some(40),
        "smallest GIF is {min:?} bytes; the study's 70 B"
    );
    assert!(
        (Some(36_000)..=Some(44_000)).contains(&max),
        "largest GIF is {max:?} bytes; the study's about 40 KB"
    );

    let html = String::from_utf8_lossy(page).to_ascii_lowercase();
    for (name, _) in &gifs {
        assert!(
            html.contains(&format!("\"{name}\"")),
            "index.html never refers to {name}"
        );
    }
}
