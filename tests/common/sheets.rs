//! The real style sheets of Debian packages that `.ci/package-corpus.sh` unpacks, and a tally
//! of what the minifier makes of them: shared by the corpus test
//! (`tests/pipeline/style_sheets.rs`) and `benches/package-sheets.rs`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use webdiet::css::minify::Kept;

/// Where the package corpus is unpacked: `$WEBDIET_PACKAGE_CORPUS/root`, or
/// `target/package-corpus/root` in this checkout (where `.ci/package-corpus.sh` puts it).
pub fn package_root() -> PathBuf {
    std::env::var_os("WEBDIET_PACKAGE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/package-corpus"))
        .join("root")
}

/// Every regular file named `*.css` under `root`, symbolic links not followed, in path order.
pub fn style_sheets(root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("css")))
        .collect();
    found.sort();
    found
}

/// What the minifier made of a set of sheets.
#[derive(Debug, Default)]
pub struct Tally {
    pub files: usize,
    pub bytes: u64,
    /// Sheets whose minified text is smaller: how many, their bytes before and after.
    pub minified: usize,
    pub minified_from: u64,
    pub minified_to: u64,
    /// Sheets minified to no fewer bytes (kept as they are).
    pub not_smaller: usize,
    /// Sheets left as they are: something browsers recover from differently; an undeclared
    /// charset.
    pub unparsed: Vec<(String, String)>,
    pub charset: usize,
    /// Sheets whose minified text failed the proof: a bug in the minifier, caught.
    pub not_proven: Vec<(String, String)>,
}

impl Tally {
    /// Counts one sheet (`path` for the report) of `from` bytes and what minifying it gave.
    pub fn add(&mut self, path: &str, from: usize, result: &Result<Vec<u8>, Kept>) {
        self.files += 1;
        self.bytes += from as u64;
        match result {
            Ok(out) if out.len() < from => {
                self.minified += 1;
                self.minified_from += from as u64;
                self.minified_to += out.len() as u64;
            }
            Ok(_) => self.not_smaller += 1,
            Err(Kept::Unparsed(why)) => self.unparsed.push((path.into(), why.clone())),
            Err(Kept::Charset(_)) => self.charset += 1,
            Err(Kept::NotProven(why)) => self.not_proven.push((path.into(), why.clone())),
        }
    }

    /// One paragraph: the counts and the bytes saved.
    pub fn summary(&self) -> String {
        let saved = self.minified_from - self.minified_to;
        let pct = |part: u64, of: u64| 100.0 * part as f64 / of.max(1) as f64;
        format!(
            "{} sheets, {} bytes: {} minified, {} → {} bytes (−{:.1} % of them, −{:.1} % of all); \
             kept: {} no smaller, {} unparsed, {} in an undeclared charset, {} failing the proof",
            self.files,
            self.bytes,
            self.minified,
            self.minified_from,
            self.minified_to,
            pct(saved, self.minified_from),
            pct(saved, self.bytes),
            self.not_smaller,
            self.unparsed.len(),
            self.charset,
            self.not_proven.len(),
        )
    }
}
