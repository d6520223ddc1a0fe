//! Working trees that webdiet makes and removes itself (an archive's materialised site, a
//! batch unit's rewrite, Chromium's profiles, the namespace child's copy of a site), and how a
//! later run tells the leftovers of a dead run from the tree of a live one, on this machine or
//! on another that shares the disk (a batch's output on a cluster's file system).
//!
//! Every such tree holds a marker file naming its owner (`.webdiet-partial`: process id, start
//! time, the machine's boot id), and the owner keeps an exclusive `flock` on that file for as
//! long as the tree lives. The kernel releases the lock when the process ends, however it
//! ends, `kill -9` included; so a later run that can take the lock knows the owner is gone,
//! and removes the tree ([`clean`]). Where the file system has no locks (an NFS mount without
//! them), the marker decides: a process of this machine that is gone, or that started at
//! another time, is gone; one of another machine may be running, and its tree is left alone.
//!
//! A tree is also removed when its [`Scratch`] is dropped, and on SIGINT, SIGTERM or SIGHUP
//! by the signal watcher (`output::interrupt`), as the output's staging directory is.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::error::shown;

/// The marker's name inside a tree.
pub const MARKER: &str = ".webdiet-partial";

/// The names of scratch trees: `.webdiet-scratch-WHAT-PID-N`.
const PREFIX: &str = ".webdiet-scratch-";

const TOOL: &str = "webdiet";

/// Who made a tree: the content of its marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    /// Always `webdiet`.
    pub tool: String,
    pub pid: u32,
    /// The process's start time (clock ticks after boot, `/proc/PID/stat`), which tells a
    /// live process from a later one that was given the same PID. `None` without `/proc`.
    pub started: Option<u64>,
    /// The machine's boot id (`/proc/sys/kernel/random/boot_id`): a process id means nothing
    /// on another machine, or after a reboot. `None` without `/proc`, and in markers written
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot: Option<String>,
}

/// Whether the owner of a tree is still running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    Running,
    Gone,
    /// Nothing can tell (no locks, and another machine's process or no `/proc`).
    Unknown,
}

impl Owner {
    pub fn of_this_process() -> Self {
        let pid = std::process::id();
        Owner {
            tool: TOOL.to_string(),
            pid,
            started: start_time(pid),
            boot: boot_id(),
        }
    }

    /// The owner written in `dir`'s marker, if it is webdiet's.
    pub fn read(dir: &Path) -> Option<Self> {
        let bytes = fs::read(dir.join(MARKER)).ok()?;
        serde_json::from_slice::<Owner>(&bytes)
            .ok()
            .filter(|p| p.tool == TOOL)
    }

    /// Whether the owner of the tree `dir` runs: by the lock on its marker when the file
    /// system has locks, else by the process id on this machine.
    pub fn liveness(&self, dir: &Path) -> Liveness {
        if let Ok(file) = File::open(dir.join(MARKER)) {
            match crate::sys::try_lock(&file) {
                Ok(true) => return Liveness::Gone,
                Ok(false) => return Liveness::Running,
                Err(_) => {}
            }
        }
        self.liveness_by_pid()
    }

    /// Liveness from the process id alone (file systems without locks).
    pub fn liveness_by_pid(&self) -> Liveness {
        if !Path::new("/proc/self/stat").exists() {
            return Liveness::Unknown;
        }
        match (&self.boot, boot_id()) {
            (Some(theirs), Some(ours)) if *theirs != ours => return Liveness::Unknown,
            _ => {}
        }
        match (start_time(self.pid), self.started) {
            (None, _) => Liveness::Gone,
            (Some(now), Some(then)) if now != then => Liveness::Gone,
            _ => Liveness::Running,
        }
    }

    pub fn to_json(&self) -> String {
        crate::report::json::to_string(self)
    }
}

/// Field 22 of `/proc/PID/stat`: when the process started.
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces or `)`.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

fn boot_id() -> Option<String> {
    fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_string())
}

/// The lock a live tree's owner holds on its marker: released when dropped, or when the
/// process ends.
#[derive(Debug)]
pub struct Held(#[allow(dead_code)] File);

/// Writes `dir`'s marker for this process and takes its lock. The lock is taken before the
/// marker says anything, so that no other run can read it as a dead run's.
pub fn mark(dir: &Path) -> io::Result<Held> {
    let mut file = File::create_new(dir.join(MARKER))?;
    // A file system without locks still gets its marker: the process id then decides.
    let _ = crate::sys::try_lock(&file);
    file.write_all(Owner::of_this_process().to_json().as_bytes())?;
    Ok(Held(file))
}

/// A scratch tree, `BASE/.webdiet-scratch-WHAT-PID-N/`: marked, locked, removed on a signal
/// and when dropped.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    _held: Held,
    registration: u64,
}

impl Scratch {
    /// Makes a new scratch tree under `base` (which must exist).
    pub fn new(base: &Path, what: &str) -> io::Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        crate::output::interrupt::install()?;
        loop {
            let n = NEXT.fetch_add(1, Ordering::SeqCst);
            let path = base.join(format!("{PREFIX}{what}-{}-{n}", std::process::id()));
            let registration = crate::output::interrupt::guard(&path)?;
            match fs::create_dir(&path) {
                Ok(()) => {}
                Err(e) => {
                    crate::output::interrupt::release(registration);
                    match e.kind() {
                        io::ErrorKind::AlreadyExists => continue,
                        _ => return Err(e),
                    }
                }
            }
            return match mark(&path) {
                Ok(held) => Ok(Scratch {
                    path,
                    _held: held,
                    registration,
                }),
                Err(e) => {
                    crate::output::interrupt::release(registration);
                    let _ = fs::remove_dir_all(&path);
                    Err(e)
                }
            };
        }
    }

    /// A scratch tree under the system's temporary directory (`$TMPDIR`, else `/tmp`).
    pub fn temp(what: &str) -> io::Result<Scratch> {
        Scratch::new(&std::env::temp_dir(), what)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        crate::output::interrupt::release(self.registration);
        let _ = crate::output::interrupt::remove_tree(&self.path);
    }
}

/// Removes the scratch trees under `base` whose owners are gone (killed: a signal they could
/// not catch, a scheduler's pre-emption, a power cut), and says what it did and left.
pub fn clean(base: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let Ok(entries) = fs::read_dir(base) else {
        return notes;
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(PREFIX))
        .map(|e| e.path())
        .collect();
    found.sort();
    for dir in found {
        let Some(owner) = Owner::read(&dir) else {
            // Killed between making the directory and marking it: empty, or not ours.
            if fs::remove_dir(&dir).is_err() && !dir.join(MARKER).exists() {
                notes.push(format!(
                    "{}: not recognised as webdiet's (no {MARKER} in it); left alone",
                    shown(&dir)
                ));
            }
            continue;
        };
        match owner.liveness(&dir) {
            Liveness::Running => {}
            Liveness::Unknown => notes.push(format!(
                "{}: made by webdiet pid {}, which may still run elsewhere (no file locks \
                 here to ask); left alone",
                shown(&dir),
                owner.pid
            )),
            Liveness::Gone => notes.push(match crate::output::interrupt::remove_tree(&dir) {
                Ok(()) => format!(
                    "{}: removed, the scratch tree of an interrupted run (pid {})",
                    shown(&dir),
                    owner.pid
                ),
                Err(e) => format!(
                    "{}: the scratch tree of an interrupted run (pid {}) could not be \
                     removed: {e}",
                    shown(&dir),
                    owner.pid
                ),
            }),
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_running_and_a_changed_start_time_is_another_process() {
        let me = Owner::of_this_process();
        if !Path::new("/proc/self/stat").exists() {
            assert_eq!(me.liveness_by_pid(), Liveness::Unknown);
            return;
        }
        assert!(me.started.is_some() && me.boot.is_some());
        assert_eq!(me.liveness_by_pid(), Liveness::Running);
        let reused = Owner {
            started: me.started.map(|t| t + 1),
            ..me.clone()
        };
        assert_eq!(reused.liveness_by_pid(), Liveness::Gone);
        let elsewhere = Owner {
            boot: Some("another machine".into()),
            ..reused
        };
        assert_eq!(elsewhere.liveness_by_pid(), Liveness::Unknown);
    }

    #[test]
    fn a_held_lock_means_running_and_a_released_one_gone_whatever_the_pid_says() {
        let base = tempfile::tempdir().unwrap();
        let scratch = Scratch::new(base.path(), "test").unwrap();
        let owner = Owner::read(scratch.path()).unwrap();
        assert_eq!(owner.liveness(scratch.path()), Liveness::Running);
        assert!(clean(base.path()).is_empty());
        assert!(scratch.path().exists());
        // A tree whose marker nobody holds: its owner is gone, even with this process's id.
        let dead = base.path().join(format!("{PREFIX}dead-1-0"));
        fs::create_dir_all(dead.join("site")).unwrap();
        fs::write(dead.join(MARKER), Owner::of_this_process().to_json()).unwrap();
        let notes = clean(base.path());
        assert!(!dead.exists(), "{notes:?}");
        assert!(notes[0].contains("removed"), "{notes:?}");
        let path = scratch.path().to_path_buf();
        drop(scratch);
        assert!(!path.exists());
    }
}
