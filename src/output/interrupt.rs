//! Ctrl-C and `kill` must not leave half an output behind. While a run builds its output in a
//! staging directory, the directory is registered here; on SIGINT, SIGTERM or SIGHUP a
//! watcher thread removes every registered staging directory (and the output directories the
//! run created, when they are still empty), then ends the process the way the signal would
//! have.
//!
//! A commit of the output holds the same lock as the watcher, so a signal that arrives while
//! the output is being moved into place waits for the commit to finish: the output is then
//! the new one, complete, never a mixture. Worker threads may still be writing into a staging
//! directory while it is removed: they create directories only through [`create_dir_all`],
//! which refuses once a signal has been taken, so a removed tree cannot grow back.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};
use std::time::Duration;

use signal_hook::consts::signal::{SIGHUP, SIGINT, SIGTERM};

/// What a signal must undo for one run in progress.
#[derive(Debug, Clone)]
pub(super) struct Cleanup {
    /// A staging directory, removed with everything in it.
    pub tree: PathBuf,
    /// Directories the run created for its output, outermost first; each is removed only if
    /// it is empty.
    pub created: Vec<PathBuf>,
}

impl Cleanup {
    pub fn run(&self) {
        let _ = remove_tree(&self.tree);
        for dir in self.created.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
}

pub(super) struct Registry {
    /// A signal was taken: the process is about to end.
    stopping: bool,
    next_id: u64,
    pending: Vec<(u64, Cleanup)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    stopping: false,
    next_id: 0,
    pending: Vec::new(),
});

/// The registry, held: while it is held no signal cleanup runs (and after one ran, the
/// holder is the process's last act).
pub(super) fn lock() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Registry {
    pub fn register(&mut self, cleanup: Cleanup) -> u64 {
        self.next_id += 1;
        self.pending.push((self.next_id, cleanup));
        self.next_id
    }

    /// Ends the registration `id`, returning what it would have cleaned.
    pub fn take(&mut self, id: u64) -> Option<Cleanup> {
        let at = self.pending.iter().position(|(i, _)| *i == id)?;
        Some(self.pending.remove(at).1)
    }
}

/// Registers a tree to be removed on a signal (a scratch tree, `crate::scratch`): the number
/// to [`release`] it by. Refused once a signal was taken.
pub(crate) fn guard(tree: &Path) -> io::Result<u64> {
    let mut registry = lock();
    if registry.stopping {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "webdiet is stopping on a signal",
        ));
    }
    Ok(registry.register(Cleanup {
        tree: tree.to_path_buf(),
        created: Vec::new(),
    }))
}

/// Ends a registration made by [`guard`] (the tree is removed by its owner, or kept).
pub(crate) fn release(id: u64) {
    lock().take(id);
}

/// Starts the signal watcher once per process.
pub(crate) fn install() -> io::Result<()> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]).and_then(
            |mut signals| {
                std::thread::Builder::new()
                    .name("webdiet-signals".to_string())
                    .spawn(move || {
                        if let Some(signal) = signals.forever().next() {
                            stop(signal);
                        }
                    })
                    .map(|_| ())
            },
        );
    });
    result
}

/// Removes every registered staging directory and ends the process as `signal` would.
fn stop(signal: i32) -> ! {
    let mut registry = lock();
    registry.stopping = true;
    for (_, cleanup) in registry.pending.drain(..) {
        cleanup.run();
    }
    // The lock stays held: nothing may create or commit anything any more.
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    std::process::abort()
}

/// Creates a directory and its missing parents (as [`fs::create_dir_all`]), unless a signal
/// is being handled: then it fails, so that a staging tree being removed cannot grow back.
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let registry = lock();
    if registry.stopping {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "webdiet is stopping on a signal",
        ));
    }
    fs::create_dir_all(dir)
}

/// Removes a directory tree, retrying while other threads still write into it (each retry
/// removes what they added; they cannot add directories any more, see [`create_dir_all`]).
pub(crate) fn remove_tree(dir: &Path) -> io::Result<()> {
    let mut last = Ok(());
    for _ in 0..200 {
        match fs::remove_dir_all(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => last = Err(e),
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    last
}
