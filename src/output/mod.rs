//! The output directory belongs to the user. webdiet writes into it, but replaces only what
//! it wrote there itself, and a run's results appear there together or not at all. One set
//! of rules for `audit`, `rewrite` and `verify --out` (the README's "Output location" says
//! the same for users):
//!
//! - `--out DIR` must be a directory, or a path where one can be made: a file, `/dev/null` or
//!   a path under a file is refused. It must not lie inside an input site, and nothing webdiet
//!   would replace may contain one.
//! - webdiet keeps `DIR/.webdiet-output` ([`Marker`]), listing what it wrote into `DIR`. An
//!   entry a run would write that exists and is not listed there — a user's `DIR/site/`,
//!   their own `report.md` — is refused (exit 2, naming it) unless `--force`, which lets
//!   webdiet replace exactly those entries ([`Plan::writes`]) and nothing else in `DIR`.
//! - A run builds everything in `DIR/.webdiet-partial-PID/` ([`Transaction`]) and moves it into
//!   place only when all of it is complete; the old output stays until then. On failure, or on
//!   SIGINT/SIGTERM/SIGHUP (`interrupt`), the staging directory is removed and `DIR` is as it
//!   was.
//! - A staging directory left by a killed run (SIGKILL, power loss) is removed by the next run
//!   when its marker proves the process that made it is gone, and reported otherwise.

pub(crate) mod interrupt;
mod marker;

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::error::{shown, Error, Result};
use crate::scratch::{Liveness, Owner, MARKER as PARTIAL_MARKER};
pub use interrupt::create_dir_all;
use marker::EVERYTHING;
pub use marker::{Found, Marker, MARKER};

/// The rewritten copy of the site, `DIR/site/`.
pub const SITE: &str = "site";
pub const REPORT_JSON: &str = "report.json";
pub const REPORT_MD: &str = "report.md";
pub const REPORT_HTML: &str = "report.html";
/// Staging directories are `DIR/.webdiet-partial-PID`.
const PARTIAL_PREFIX: &str = ".webdiet-partial-";
/// Inside a staging directory: the entries a commit moved aside.
const OLD: &str = ".old";

/// Where a command that writes puts its results, and whether it may replace what webdiet did
/// not write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPaths {
    /// `--out DIR`. Default: `out/<site directory name>/`.
    pub dir: PathBuf,
    /// `--force`: replace the entries the run writes even when webdiet did not write them.
    /// Default: `false`.
    pub force: bool,
}

impl OutputPaths {
    /// Picks the output directory for a site (without checking it: see [`check`]).
    pub fn for_site(site: &Path, out: Option<&Path>, force: bool) -> Self {
        let dir = match out {
            Some(dir) => dir.to_path_buf(),
            None => Path::new("out").join(crate::site::site_name(site)),
        };
        OutputPaths { dir, force }
    }

    /// The rewritten copy of the site.
    pub fn site(&self) -> PathBuf {
        self.dir.join(SITE)
    }
    pub fn report_json(&self) -> PathBuf {
        self.dir.join(REPORT_JSON)
    }
    pub fn report_html(&self) -> PathBuf {
        self.dir.join(REPORT_HTML)
    }
    pub fn report_md(&self) -> PathBuf {
        self.dir.join(REPORT_MD)
    }
}

/// What a run does to its output directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Recorded in the marker: `audit`, `rewrite`, `verify`.
    pub command: &'static str,
    /// The entries of `DIR` the run writes (replacing them). `*` means any name (verify's
    /// diff images): the directory must then be empty or webdiet's.
    pub writes: Vec<&'static str>,
    /// Entries an earlier run wrote that this run's output makes stale (a `report.md` beside
    /// a newer `report.json`): removed when the marker lists them, left alone otherwise.
    pub supersedes: Vec<&'static str>,
}

impl Plan {
    /// `audit`: the rewritten site and three reports; with `--dry-run` the reports only (an
    /// existing `site/` is then left as it is).
    pub fn audit(dry_run: bool) -> Self {
        let mut writes = vec![REPORT_JSON, REPORT_MD, REPORT_HTML];
        if !dry_run {
            writes.insert(0, SITE);
        }
        Plan {
            command: "audit",
            writes,
            supersedes: Vec::new(),
        }
    }

    /// `rewrite`: the rewritten site and `report.json`; an audit's Markdown and HTML reports
    /// describe an older run then.
    pub fn rewrite() -> Self {
        Plan {
            command: "rewrite",
            writes: vec![SITE, REPORT_JSON],
            supersedes: vec![REPORT_MD, REPORT_HTML],
        }
    }

    /// `verify`: diff images named after the pages, anywhere in the directory.
    pub fn verify() -> Self {
        Plan {
            command: "verify",
            writes: vec![EVERYTHING],
            supersedes: Vec::new(),
        }
    }
}

/// Checks that the run may write its output into `out.dir`: a directory (or a path where one
/// can be made), outside every input tree, and each entry the run writes absent, webdiet's
/// own, or `--force`d. Writes nothing.
pub fn check(out: &OutputPaths, plan: &Plan, inputs: &[&Path]) -> Result<()> {
    let dir = &out.dir;
    check_directory(dir)?;
    for input in inputs {
        refuse_overlap(input, dir, plan)?;
    }
    if !dir.is_dir() || out.force {
        return Ok(());
    }
    let found = Marker::find(dir);
    let marker = match &found {
        Found::Foreign(reason) => {
            return Err(Error::OutputNotOurs {
                path: dir.join(MARKER),
                reason: reason.clone(),
            })
        }
        Found::Ours(marker) => Some(marker),
        Found::Absent => None,
    };
    let claimed = |name: &str| marker.is_some_and(|m| m.claims(name));
    for &name in &plan.writes {
        if claimed(name) {
            continue;
        }
        let (path, taken) = if name == EVERYTHING {
            (dir.clone(), first_entry(dir)?.is_some())
        } else {
            let path = dir.join(name);
            let taken = fs::symlink_metadata(&path).is_ok();
            (path, taken)
        };
        if taken {
            let reason = match (name, marker) {
                (EVERYTHING, Some(other)) => format!(
                    "holds the output of `webdiet {}`, and `webdiet {}` needs a directory of \
                     its own",
                    other.command, plan.command
                ),
                (EVERYTHING, None) => "is not empty and webdiet did not make it".to_string(),
                (_, Some(_)) => format!(
                    "exists and webdiet did not write it ({} does not list it)",
                    shown(&dir.join(MARKER))
                ),
                (_, None) => format!(
                    "exists and webdiet did not write it (there is no {})",
                    shown(&dir.join(MARKER))
                ),
            };
            return Err(Error::OutputNotOurs { path, reason });
        }
    }
    Ok(())
}

/// A name in `dir` other than webdiet's marker, if there is one.
fn first_entry(dir: &Path) -> Result<Option<PathBuf>> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        if entry.file_name() != MARKER {
            return Ok(Some(entry.path()));
        }
    }
    Ok(None)
}

/// `dir` is a directory, or nothing yet under a directory.
fn check_directory(dir: &Path) -> Result<()> {
    let not_there = |e: &io::Error| {
        matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        )
    };
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(meta) => {
            return Err(Error::OutputNotADirectory {
                path: dir.to_path_buf(),
                what: what_is(&meta),
            })
        }
        Err(e) if not_there(&e) => {}
        Err(e) => return Err(Error::io(dir, e)),
    }
    let mut ancestor = dir;
    while let Some(parent) = ancestor.parent().filter(|p| !p.as_os_str().is_empty()) {
        match fs::metadata(parent) {
            Ok(meta) if meta.is_dir() => return Ok(()),
            Ok(meta) => {
                return Err(Error::OutputUnderAFile {
                    path: dir.to_path_buf(),
                    blocker: parent.to_path_buf(),
                    what: what_is(&meta),
                })
            }
            Err(e) if not_there(&e) => ancestor = parent,
            Err(e) => return Err(Error::io(parent, e)),
        }
    }
    Ok(())
}

/// "a file", "a character device" (`/dev/null`), … for messages.
fn what_is(meta: &fs::Metadata) -> &'static str {
    crate::input::kind_of(meta)
}

/// Refuses an output directory inside an input tree, and one where an entry webdiet would
/// replace holds an input tree (`--out` = the parent of a site named `site`). `--force` does
/// not lift this: the input is read-only to webdiet, always.
fn refuse_overlap(input: &Path, out: &Path, plan: &Plan) -> Result<()> {
    let input_abs = fs::canonicalize(input).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => Error::NotFound {
            path: input.to_path_buf(),
        },
        _ => Error::io(input, e),
    })?;
    let out_abs = absolute_lexical(out)?;
    if out_abs.starts_with(&input_abs) {
        return Err(Error::OutputInsideSite {
            out: out.to_path_buf(),
            site: input.to_path_buf(),
        });
    }
    let replaced = plan.writes.iter().chain(&plan.supersedes);
    for name in replaced {
        let entry = match *name {
            EVERYTHING => out_abs.clone(),
            name => out_abs.join(name),
        };
        if input_abs.starts_with(&entry) {
            return Err(Error::OutputContainsSite {
                out: out.to_path_buf(),
                site: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// An absolute form of a path that may not exist yet: the deepest existing ancestor is
/// canonicalized (resolving symlinks), the rest appended as written.
fn absolute_lexical(path: &Path) -> Result<PathBuf> {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let joined = cwd.join(path);
    let mut existing = joined.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = fs::canonicalize(existing) {
            let mut out = canonical;
            for part in rest.iter().rev() {
                match part {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    other => out.push(other),
                }
            }
            return Ok(out);
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return Ok(joined),
        }
    }
}

/// One run's output, being built in `DIR/.webdiet-partial-PID/` and moved into `DIR` by
/// [`Transaction::commit`]. Dropped without a commit (an error), it removes the staging
/// directory and the directories it created, and `DIR` is as it was.
#[derive(Debug)]
pub struct Transaction {
    dir: PathBuf,
    staging: PathBuf,
    plan: Plan,
    force: bool,
    inputs: Vec<PathBuf>,
    /// The signal registration, until the commit or the drop ends it.
    id: u64,
    /// The lock on the staging directory's marker, by which other runs know it is alive.
    _held: crate::scratch::Held,
    /// What a person should know: leftovers of earlier runs, removed or left.
    notes: Vec<String>,
}

impl Transaction {
    /// Checks the output directory ([`check`]), deals with what killed runs left there,
    /// makes the staging directory and registers it for removal on a signal.
    pub fn begin(out: &OutputPaths, plan: Plan, inputs: &[&Path]) -> Result<Self> {
        check(out, &plan, inputs)?;
        interrupt::install().map_err(|e| Error::io("signal handlers", e))?;
        let dir = out.dir.clone();
        let mut notes = Vec::new();
        if dir.is_dir() {
            notes = clean_stale(&dir);
        }
        let staging = dir.join(format!("{PARTIAL_PREFIX}{}", std::process::id()));
        let mut registry = interrupt::lock();
        let created = create_missing(&dir)?;
        let made = fs::create_dir(&staging).and_then(|()| crate::scratch::mark(&staging));
        let cleanup = interrupt::Cleanup {
            tree: staging.clone(),
            created,
        };
        let held = match made {
            Ok(held) => held,
            Err(e) => {
                cleanup.run();
                return Err(Error::io(&staging, e));
            }
        };
        let id = registry.register(cleanup);
        drop(registry);
        Ok(Transaction {
            dir,
            staging,
            plan,
            force: out.force,
            inputs: inputs.iter().map(|p| p.to_path_buf()).collect(),
            id,
            _held: held,
            notes,
        })
    }

    /// The staging directory itself: where the run may keep scratch trees of its own (an
    /// archive's materialised site), removed with it.
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// Where the run builds an entry (`site`, `report.json`) until the commit.
    pub fn path(&self, entry: &str) -> PathBuf {
        self.staging.join(entry)
    }

    /// Writes a file entry (a report) into the staging directory.
    pub fn write(&self, entry: &str, bytes: &[u8]) -> Result<()> {
        let path = self.path(entry);
        write_whole(&path, bytes).map_err(|e| Error::io(&path, e))
    }

    /// Leftovers of earlier runs found in the output directory: removed, or left and why.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Moves every entry the run wrote into the output directory, replacing the old ones, and
    /// removes superseded entries webdiet wrote; all of it or, when a step fails, none (the
    /// moves made are undone). A signal that arrives meanwhile waits until it is done.
    pub fn commit(self) -> Result<()> {
        let mut registry = interrupt::lock();
        // Between `begin` and now someone may have put something in the way.
        let inputs: Vec<&Path> = self.inputs.iter().map(PathBuf::as_path).collect();
        check(
            &OutputPaths {
                dir: self.dir.clone(),
                force: self.force,
            },
            &self.plan,
            &inputs,
        )?;
        let claimed: BTreeSet<String> = match Marker::find(&self.dir) {
            Found::Ours(marker) => marker.entries,
            _ => BTreeSet::new(),
        };
        let written: Vec<&str> = self
            .plan
            .writes
            .iter()
            .copied()
            .filter(|name| fs::symlink_metadata(self.path(name)).is_ok())
            .collect();
        let stale = self
            .plan
            .supersedes
            .iter()
            .copied()
            .filter(|name| claimed.contains(*name));
        let old = self.staging.join(OLD);
        let mut moves: Vec<(PathBuf, PathBuf)> = Vec::new();
        let mut result = fs::create_dir(&old).map_err(|e| Error::io(&old, e));
        for name in written.iter().copied().chain(stale) {
            let target = self.dir.join(name);
            if result.is_ok() && fs::symlink_metadata(&target).is_ok() {
                result = rename(&target, &old.join(name), &mut moves);
            }
        }
        for name in &written {
            if result.is_ok() {
                result = rename(&self.path(name), &self.dir.join(name), &mut moves);
            }
        }
        if result.is_ok() {
            let mut entries: BTreeSet<String> = claimed
                .into_iter()
                .filter(|name| fs::symlink_metadata(self.dir.join(name)).is_ok())
                .collect();
            entries.extend(written.iter().map(|n| n.to_string()));
            let marker = Marker::new(self.plan.command, entries);
            let new_marker = self.staging.join(MARKER);
            result = write_whole(&new_marker, marker.to_json().as_bytes())
                .and_then(|()| fs::rename(&new_marker, self.dir.join(MARKER)))
                .map_err(|e| Error::io(self.dir.join(MARKER), e));
        }
        if let Err(e) = result {
            let undone = moves
                .iter()
                .rev()
                .all(|(from, to)| fs::rename(to, from).is_ok());
            if undone {
                return Err(e);
            }
            // The staging directory holds the old output now: it must stay.
            registry.take(self.id);
            return Err(Error::Invalid {
                path: self.dir.clone(),
                message: format!(
                    "{e}; and the output could not be put back as it was: the previous \
                     entries are in {}",
                    shown(&old)
                ),
            });
        }
        // The old entries go with the staging directory; the output is already in place.
        registry.take(self.id);
        let _ = interrupt::remove_tree(&self.staging);
        Ok(())
    }
}

fn rename(from: &Path, to: &Path, moves: &mut Vec<(PathBuf, PathBuf)>) -> Result<()> {
    fs::rename(from, to).map_err(|e| Error::io(from, e))?;
    moves.push((from.to_path_buf(), to.to_path_buf()));
    Ok(())
}

impl Drop for Transaction {
    fn drop(&mut self) {
        let mut registry = interrupt::lock();
        if let Some(cleanup) = registry.take(self.id) {
            cleanup.run();
        }
    }
}

/// Makes `dir` and its missing parents, returning those it made, outermost first.
fn create_missing(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(path) = at.filter(|p| !p.as_os_str().is_empty()) {
        if fs::symlink_metadata(path).is_ok() {
            break;
        }
        missing.push(path.to_path_buf());
        at = path.parent();
    }
    missing.reverse();
    let mut created = Vec::new();
    for path in missing {
        match fs::create_dir(&path) {
            Ok(()) => created.push(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                for made in created.iter().rev() {
                    let _ = fs::remove_dir(made);
                }
                return Err(Error::io(&path, e));
            }
        }
    }
    Ok(created)
}

/// Removes the staging directories and scratch trees of webdiet runs that are provably gone,
/// and describes every leftover found in `dir`.
fn clean_stale(dir: &Path) -> Vec<String> {
    let mut notes = crate::scratch::clean(dir);
    let Ok(entries) = fs::read_dir(dir) else {
        return notes;
    };
    let mut names: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    names.sort();
    for path in names {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if let Some(pid) = name.strip_prefix(PARTIAL_PREFIX) {
            if pid.parse::<u32>().is_ok() {
                notes.extend(clean_partial(&path));
            }
        } else if is_legacy_partial(name) {
            notes.push(format!(
                "{}: left by an interrupted run of an older webdiet, it seems; not removed \
                 (delete it when no webdiet is running)",
                shown(&path)
            ));
        }
    }
    notes
}

/// What webdiet 0.1 left on a kill: `.site.partial-PID`, `.site.old-PID`,
/// `.report.json.partial-PID`.
fn is_legacy_partial(name: &str) -> bool {
    let Some((stem, pid)) = name.rsplit_once('-') else {
        return false;
    };
    let stem_ok = stem == ".site.old"
        || (stem.ends_with(".partial")
            && [SITE, REPORT_JSON, REPORT_MD, REPORT_HTML]
                .iter()
                .any(|entry| stem == format!(".{entry}.partial")));
    stem_ok && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
}

fn clean_partial(path: &Path) -> Option<String> {
    let Some(partial) = Owner::read(path) else {
        // Killed between making the directory and writing its marker: empty, or not ours.
        return match fs::remove_dir(path) {
            Ok(()) => None,
            Err(_) => Some(format!(
                "{}: not recognised as webdiet's (no {PARTIAL_MARKER} in it); left alone",
                shown(path)
            )),
        };
    };
    match partial.liveness(path) {
        Liveness::Running => Some(format!(
            "{}: being written by a webdiet that is still running (pid {}); left alone",
            shown(path),
            partial.pid
        )),
        Liveness::Unknown => Some(format!(
            "{}: left by webdiet pid {}, which may still run (no /proc to ask); left alone",
            shown(path),
            partial.pid
        )),
        Liveness::Gone if path.join(OLD).exists() => Some(format!(
            "{}: webdiet pid {} was killed while moving its output into place; the entries \
             it replaced are in {}; left for you to sort out",
            shown(path),
            partial.pid,
            shown(&path.join(OLD))
        )),
        Liveness::Gone => Some(match interrupt::remove_tree(path) {
            Ok(()) => format!(
                "{}: removed, the unfinished output of an interrupted run (pid {})",
                shown(path),
                partial.pid
            ),
            Err(e) => format!(
                "{}: the unfinished output of an interrupted run (pid {}) could not be \
                 removed: {e}",
                shown(path),
                partial.pid
            ),
        }),
    }
}

/// Makes verify's output directory on its first diff image, with webdiet's marker.
pub fn prepare_verify_dir(dir: &Path) -> io::Result<()> {
    if matches!(Marker::find(dir), Found::Ours(_)) {
        return Ok(());
    }
    create_dir_all(dir)?;
    let marker = Marker::new("verify", [EVERYTHING.to_string()].into());
    let temp = dir.join(format!("{MARKER}.partial-{}", std::process::id()));
    write_whole(&temp, marker.to_json().as_bytes())?;
    fs::rename(&temp, dir.join(MARKER))
}

#[cfg(test)]
mod tests;

/// Checks that a file the user named on the command line (`replay --chart FILE`, `replay
/// --capture FILE`, `audit --junit FILE`, …, given as `option`) may be written: never inside
/// the input `site`, never over a directory or a device or under a file, and over an existing
/// file only when webdiet wrote it (`ours` says so) or with `force`. Writes nothing.
pub fn check_named_file(
    path: &Path,
    option: &'static str,
    site: &Path,
    ours: &dyn Fn(&Path) -> bool,
) -> Result<()> {
    check_named_output(path, option, site, ours, false)
}

/// [`check_named_file`], replacing a file webdiet did not write too when `force` is given
/// (`audit --force --junit FILE`).
pub fn check_named_output(
    path: &Path,
    option: &'static str,
    site: &Path,
    ours: &dyn Fn(&Path) -> bool,
    force: bool,
) -> Result<()> {
    let refuse = |reason: String| Error::NamedOutputRefused {
        path: path.to_path_buf(),
        option,
        reason,
    };
    let parent = parent_of(path);
    let site_abs = fs::canonicalize(site).map_err(|e| Error::io(site, e))?;
    let mut target = absolute_lexical(&parent)?;
    target.push(path.file_name().unwrap_or_default());
    if target.starts_with(&site_abs) {
        return Err(refuse(format!(
            "it is inside the input site {}, which webdiet never writes into",
            shown(site)
        )));
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => {
            if !force && !ours(path) {
                return Err(refuse(
                    "this file exists and webdiet did not write it (webdiet replaces only \
                     its own); choose another name, or --force"
                        .to_string(),
                ));
            }
        }
        Ok(meta) if meta.is_dir() => {
            return Err(refuse("this is a directory; name a file".to_string()))
        }
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(refuse(
                "this is a symbolic link, and webdiet did not make it".to_string(),
            ))
        }
        Ok(meta) => return Err(refuse(format!("this is {}, not a file", what_is(&meta)))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(path, e)),
    }
    // Every existing ancestor must be a directory.
    let mut ancestor = parent.as_path();
    loop {
        match fs::metadata(ancestor) {
            Ok(meta) if meta.is_dir() => return Ok(()),
            Ok(meta) => {
                return Err(refuse(format!(
                    "{} is {}, not a directory",
                    shown(ancestor),
                    what_is(&meta)
                )))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(ancestor, e)),
        }
        match ancestor.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(up) => ancestor = up,
            None => return Ok(()),
        }
    }
}

/// The directory a named file goes in (`.` for a bare name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => dir.to_path_buf(),
        None => PathBuf::from("."),
    }
}

/// Where a named file is built before it is renamed into place: `.NAME.partial-PID` beside it.
pub fn staging_name(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    parent_of(path).join(format!(".{name}.partial-{}", std::process::id()))
}

/// Writes `bytes` to a new file at `path` and syncs it: every byte written, or an error.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use io::Write;
    let mut file = fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_data()
}

/// Whether the file at `path` begins with `signature` (how a chart or a JUnit file webdiet
/// wrote is recognised).
pub fn begins_with(path: &Path, signature: &str) -> bool {
    let mut head = vec![0; signature.len()];
    fs::File::open(path)
        .and_then(|mut f| io::Read::read_exact(&mut f, &mut head))
        .is_ok()
        && head == signature.as_bytes()
}

/// Whether `check` says the file at `path` (read up to 64 MiB) is one webdiet wrote.
pub fn content_is(path: &Path, check: fn(&[u8]) -> bool) -> bool {
    crate::input::read(path, 64 << 20).is_ok_and(|bytes| check(&bytes))
}

/// Writes one file the user named on the command line (see [`check_named_file`]), replacing
/// an existing file only when `ours` recognises it, or with `force`. Through a temporary name
/// and a rename, so that no reader ever sees half of it.
pub fn write_named_file(
    path: &Path,
    option: &'static str,
    site: &Path,
    ours: &dyn Fn(&Path) -> bool,
    force: bool,
    bytes: &[u8],
) -> Result<()> {
    check_named_output(path, option, site, ours, force)?;
    let parent = parent_of(path);
    create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
    let temp = staging_name(path);
    let written = write_whole(&temp, bytes)
        .map_err(|e| Error::io(&temp, e))
        .and_then(|()| fs::rename(&temp, path).map_err(|e| Error::io(path, e)));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}
