//! The minifier on real scripts: every `.js` file of the Debian packages `.ci/package-corpus.sh`
//! unpacks (jQuery, Bootstrap, D3, Dojo, Prototype, MooTools, CodeMirror, …), each minified one
//! checked again here: oxc reads the copy as the same program under every goal it read the
//! original under, and every comment the rules keep is in the copy, byte for byte, in order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::super::oxc::{self, Arena, Goal};
use super::super::{keep, minify_script, Kept};
use super::same_program;

/// What happened to one file.
enum Outcome {
    Minified { from: usize, to: usize },
    Kept { kind: String, why: String },
}

/// The `.js` files under `root`, in a stable order; symbolic links left out (Debian links one
/// file under several names), and hidden files (the script's `.done-libjs-*.js` marks).
fn scripts(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && !e.file_name().to_string_lossy().starts_with('.'))
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e == "js"))
        .collect();
    files.sort();
    files
}

/// The reason's kind, for the tally: `kept:…` without the detail.
fn kind(why: &Kept) -> String {
    match why {
        Kept::NotUtf8 => "not UTF-8",
        Kept::Unparsed { .. } => "oxc cannot parse it",
        Kept::ConditionalCompilation => "a comment names @cc_on",
        Kept::HtmlComment(_) => "HTML-like comment",
        Kept::Goals => "tokens differ as a script and as a module",
        Kept::Changed(_) => "CHANGED (the proof failed)",
    }
    .to_string()
}

/// The comments of `src` that its copy must hold (under the first goal oxc reads it in): those
/// the rules keep, and, written out here apart from the rules so that a rule losing one fails
/// this test, every comment the issue names: `/*!`, `@license`, `@preserve`, a copyright, a
/// licence, an SPDX line, and the leading ones.
fn kept_comments(src: &str) -> Vec<String> {
    let arena = Arena::default();
    let Some(parsed) = [Goal::Script, Goal::Module]
        .into_iter()
        .find_map(|goal| oxc::parse(&arena, src, goal).ok())
    else {
        return Vec::new();
    };
    let first_token = parsed.tokens().next().map_or(src.len(), |t| t.start);
    parsed
        .comments()
        .map(|c| (&src[c.start..c.end], c.end <= first_token))
        .filter(|(text, leading)| *leading || keep(text, *leading).is_some() || named(text))
        .map(|(text, _)| text.to_string())
        .collect()
}

/// The list of notices, as plain as it can be said.
fn named(comment: &str) -> bool {
    let lower = comment.to_lowercase();
    comment.starts_with("/*!")
        || [
            "@license",
            "@preserve",
            "copyright",
            "©",
            "licen",
            "spdx-license-identifier",
        ]
        .iter()
        .any(|word| lower.contains(word))
}

/// Checks a minified copy; panics naming the file.
fn check(path: &Path, original: &[u8], minified: &[u8]) {
    let text = |b: &[u8]| {
        String::from_utf8_lossy(b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b)).into_owned()
    };
    let (before, after) = (text(original), text(minified));
    if let Err(e) = same_program(&before, &after) {
        panic!("{}: {e}", path.display());
    }
    let mut from = 0;
    for comment in kept_comments(&before) {
        match after[from..].find(&comment) {
            Some(at) => from += at + comment.len(),
            None => panic!(
                "{}: a kept comment is missing or out of order: {comment:?}",
                path.display()
            ),
        }
    }
}

fn run(path: &Path) -> Outcome {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match minify_script(&bytes) {
        Ok(out) => {
            check(path, &bytes, &out);
            Outcome::Minified {
                from: bytes.len(),
                to: out.len(),
            }
        }
        Err(why) => Outcome::Kept {
            kind: kind(&why),
            why: why.to_string(),
        },
    }
}

#[test]
fn every_package_script_minified_is_the_same_program_with_its_notices() {
    let Some(root) = crate::testing::package_corpus() else {
        return;
    };
    let started = std::time::Instant::now();
    let files = scripts(&root);
    assert!(!files.is_empty(), "no .js file under {}", root.display());
    let outcomes: Vec<Outcome> = files.par_iter().map(|p| run(p)).collect();
    let (mut proven, mut smaller, mut from, mut to) = (0, 0, 0, 0);
    let mut kept: BTreeMap<String, usize> = BTreeMap::new();
    for outcome in &outcomes {
        match outcome {
            Outcome::Minified { from: f, to: t } => {
                proven += 1;
                smaller += usize::from(t < f);
                from += f;
                to += t;
            }
            Outcome::Kept { kind, .. } => *kept.entry(kind.clone()).or_default() += 1,
        }
    }
    eprintln!(
        "package scripts: {} files, {proven} minified and proven ({smaller} of them smaller), \
         {from} → {to} bytes ({:.1} % saved); kept as they are: {kept:?}; {:.1} s",
        files.len(),
        100.0 * (from - to) as f64 / from.max(1) as f64,
        started.elapsed().as_secs_f64()
    );
    let kept_files: Vec<(&PathBuf, &String, &String)> = files
        .iter()
        .zip(&outcomes)
        .filter_map(|(path, o)| match o {
            Outcome::Kept { kind, why } => Some((path, kind, why)),
            Outcome::Minified { .. } => None,
        })
        .collect();
    for (path, _, why) in kept_files.iter().take(20) {
        eprintln!(
            "  kept {}: {why}",
            path.strip_prefix(&root).unwrap_or(path).display()
        );
    }
    let failed: Vec<String> = kept_files
        .iter()
        .filter(|(_, kind, _)| kind.starts_with("CHANGED"))
        .map(|(path, _, why)| format!("{}: {why}", path.display()))
        .collect();
    assert!(
        failed.is_empty(),
        "the proof rejected the writer's copy of {failed:?}"
    );
    assert!(smaller > 0, "no package script got smaller");
}
