//! What the build script (`build.rs`) asks git: the revision that names a build, and the git
//! files that revision depends on, which Cargo watches so as to rerun the script when a commit
//! or a checkout changes them, and at no other time. A module of its own so that the library's
//! tests can check it against real repositories (`src/lib.rs` includes it for them).
//!
//! Cargo reruns a build script on every command while a file it watches does not exist, and
//! the crate is then rebuilt each time (a release build of it takes minutes). So only paths
//! that exist are named; a file that may appear later is noticed through its nearest existing
//! directory. Git keeps them in two places: a worktree's own git directory holds its `HEAD` and
//! `index`, the common directory (the main checkout's `.git`) holds `refs/` and `packed-refs`
//! for every worktree; `git rev-parse --git-path` maps each name to the right one.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What git prints for `args`, run in `dir`, trimmed; `None` if it fails or git is missing.
/// `--no-optional-locks`: a status must not rewrite the index, which would make the build
/// script run again on the next build.
pub fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("--no-optional-locks")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `git rev-parse --short=12 HEAD` of the checkout at `dir`, with `-dirty` when a tracked file
/// differs from it; `None` outside a checkout, before the first commit or without git.
pub fn revision(dir: &Path) -> Option<String> {
    let rev = git(dir, &["rev-parse", "--short=12", "HEAD"]).filter(|r| !r.is_empty())?;
    let dirty =
        git(dir, &["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(match dirty {
        true => format!("{rev}-dirty"),
        false => rev,
    })
}

/// The date of the commit `HEAD` names, `YYYY-MM-DD`: the man pages' date (`webdiet man`).
pub fn commit_date(dir: &Path) -> Option<String> {
    git(dir, &["log", "-1", "--date=short", "--format=%cd", "HEAD"]).filter(|d| !d.is_empty())
}

/// The paths whose change can change [`revision`] of the checkout at `dir` (apart from the
/// tracked files themselves), every one of which exists; none outside a checkout.
///
/// - `HEAD` (a checkout, a detached HEAD moving) and `index` (a commit, `git add`), both in the
///   worktree's own git directory.
/// - The branch `HEAD` names, in the common directory: its loose ref `refs/heads/NAME` when it
///   has one, which every commit rewrites. A branch only in `packed-refs` (after `git gc` or
///   `git pack-refs`, or as cloned) moves by gaining a loose ref again, `packed-refs` staying
///   as it was; so then `packed-refs` is watched, and the nearest existing directory of the
///   loose ref's path under `refs/`, where it will appear. Cargo scans a watched directory
///   whole: a commit on another branch whose loose ref lives there reruns the script too, until
///   this branch's next commit gives it a loose ref of its own. An unborn branch (after
///   `git init`, before the first commit) is watched the same way.
/// - With the reftable backend (`git init --ref-format=reftable`), `reftable/tables.list` of
///   the worktree (its `HEAD`) and of the common directory (the branches): git rewrites it on
///   every update of a ref.
pub fn watched(dir: &Path) -> Vec<PathBuf> {
    let Some(paths) = git(
        dir,
        &[
            "rev-parse",
            "--git-dir",
            "--git-common-dir",
            "--git-path",
            "HEAD",
            "--git-path",
            "index",
            "--git-path",
            "packed-refs",
            "--git-path",
            "refs",
        ],
    ) else {
        return Vec::new();
    };
    // Relative to `dir` in a plain checkout (`.git/HEAD`), absolute in a worktree.
    let paths: Vec<PathBuf> = paths.lines().map(|p| dir.join(p)).collect();
    let [git_dir, common_dir, head, index, packed_refs, refs] = paths.as_slice() else {
        return Vec::new();
    };
    let mut watched: Vec<PathBuf> = [head, index]
        .into_iter()
        .filter(|p| p.is_file())
        .cloned()
        .collect();
    let tables = common_dir.join("reftable/tables.list");
    if tables.is_file() {
        let own = git_dir.join("reftable/tables.list");
        watched.extend(own.is_file().then_some(own).filter(|own| *own != tables));
        watched.push(tables);
        return watched;
    }
    // `None` when HEAD is detached: it names a commit, and the HEAD file is watched already.
    let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) else {
        return watched;
    };
    let Some(loose) = git(dir, &["rev-parse", "--git-path", &branch]).map(|p| dir.join(p)) else {
        return watched;
    };
    if loose.is_file() {
        watched.push(loose);
        return watched;
    }
    if packed_refs.is_file() {
        watched.push(packed_refs.clone());
    }
    let home = loose
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(refs))
        .find(|d| d.is_dir());
    watched.extend(home.map(Path::to_path_buf));
    watched
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::time::{Duration, SystemTime};

    use super::*;

    /// An old time the watched paths are set to before a change: a path newer than it after
    /// the change is one Cargo would find newer than its last run of the script.
    fn aged() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(86_400)
    }

    /// Runs git for a test's setup, apart from the user's and the system's configuration.
    fn run(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=webdiet",
                "-c",
                "user.email=webdiet@example.org",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?} in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn commit(dir: &Path) {
        run(dir, &["commit", "-q", "--allow-empty", "-m", "a commit"]);
    }

    /// A new repository on `main` with this many commits.
    fn repo(commits: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), &["init", "-q", "-b", "main"]);
        (0..commits).for_each(|_| commit(dir.path()));
        dir
    }

    /// Whether git is here; without it the tests skip with a note (CI must have it).
    fn git_here() -> bool {
        let here = Command::new("git").arg("--version").output().is_ok();
        assert!(
            here || std::env::var("CI").as_deref() != Ok("true"),
            "git is missing and CI=true"
        );
        if !here {
            eprintln!("note: skipped: git is not installed");
        }
        here
    }

    /// The newest modification time of `path` and, for a directory, of everything under it,
    /// as Cargo reads a watched directory.
    fn newest(path: &Path) -> SystemTime {
        let own = fs::metadata(path).unwrap().modified().unwrap();
        match path.is_dir() {
            false => own,
            true => fs::read_dir(path)
                .unwrap()
                .map(|e| newest(&e.unwrap().path()))
                .fold(own, SystemTime::max),
        }
    }

    fn age(path: &Path) {
        if path.is_dir() {
            fs::read_dir(path)
                .unwrap()
                .for_each(|e| age(&e.unwrap().path()));
        }
        fs::File::open(path).unwrap().set_modified(aged()).unwrap();
    }

    /// Whether Cargo would rerun the build script of the checkout at `dir` after `change`: a
    /// watched path is missing or newer than the script's last run. Every watched path must
    /// exist beforehand, or Cargo would rerun it on every command.
    fn noticed(dir: &Path, change: impl FnOnce()) -> bool {
        let paths = watched(dir);
        for path in &paths {
            assert!(
                path.exists(),
                "{} is watched but missing (all: {paths:?})",
                path.display()
            );
            age(path);
        }
        change();
        paths.iter().any(|p| !p.exists() || newest(p) > aged())
    }

    fn common(dir: &Path) -> PathBuf {
        dir.join(git(dir, &["rev-parse", "--git-common-dir"]).unwrap())
    }

    #[test]
    fn a_checkout_without_packed_refs_watches_its_loose_branch_ref_and_no_missing_file() {
        if !git_here() {
            return;
        }
        let repo = repo(1);
        let dir = repo.path();
        assert!(
            !dir.join(".git/packed-refs").exists(),
            "git wrote no packed-refs here"
        );
        let paths = watched(dir);
        for name in ["HEAD", "index", "refs/heads/main"] {
            assert!(
                paths.contains(&dir.join(".git").join(name)),
                "{name} is not in {paths:?}"
            );
        }
        assert!(noticed(dir, || commit(dir)), "a commit");
        assert!(
            noticed(dir, || run(dir, &["checkout", "-q", "-b", "other"])),
            "a checkout"
        );
        assert!(!noticed(dir, || ()), "nothing changed");
    }

    #[test]
    fn a_branch_only_in_packed_refs_is_noticed_when_a_commit_gives_it_a_loose_ref() {
        if !git_here() {
            return;
        }
        let repo = repo(1);
        let dir = repo.path();
        run(dir, &["pack-refs", "--all"]);
        assert!(!dir.join(".git/refs/heads/main").exists());
        let paths = watched(dir);
        assert!(paths.contains(&dir.join(".git/packed-refs")), "{paths:?}");
        assert!(noticed(dir, || commit(dir)), "a commit");
        assert!(
            noticed(dir, || run(dir, &["pack-refs", "--all"])),
            "the loose ref packed"
        );
    }

    #[test]
    fn an_unborn_branch_is_noticed_at_its_first_commit() {
        if !git_here() {
            return;
        }
        let repo = repo(0);
        let dir = repo.path();
        assert_eq!((revision(dir), commit_date(dir)), (None, None));
        assert!(noticed(dir, || commit(dir)), "the first commit");
        let date = commit_date(dir).unwrap();
        assert!(
            date.len() == 10 && date.bytes().filter(|b| *b == b'-').count() == 2,
            "{date} is not YYYY-MM-DD"
        );
    }

    #[test]
    fn a_detached_head_is_noticed_through_the_head_file() {
        if !git_here() {
            return;
        }
        let repo = repo(1);
        let dir = repo.path();
        run(dir, &["checkout", "-q", "--detach"]);
        assert!(
            noticed(dir, || commit(dir)),
            "a commit on the detached HEAD"
        );
    }

    #[test]
    fn a_worktree_watches_its_own_head_and_index_and_the_common_refs() {
        if !git_here() {
            return;
        }
        let repo = repo(1);
        let main = repo.path();
        let tree = repo.path().join("tree");
        run(
            main,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "feature",
                tree.to_str().unwrap(),
            ],
        );
        let (own, shared) = (main.join(".git/worktrees/tree"), common(&tree));
        assert_eq!(shared, main.join(".git"));
        let paths = watched(&tree);
        for path in [
            own.join("HEAD"),
            own.join("index"),
            shared.join("refs/heads/feature"),
        ] {
            assert!(
                paths.contains(&path),
                "{} is not in {paths:?}",
                path.display()
            );
        }
        assert!(noticed(&tree, || commit(&tree)), "a commit in the worktree");
        assert!(
            !noticed(&tree, || commit(main)),
            "a commit on another branch"
        );
        run(main, &["pack-refs", "--all"]);
        assert!(watched(&tree).contains(&shared.join("packed-refs")));
        assert!(
            noticed(&tree, || commit(&tree)),
            "a commit on a packed branch"
        );
    }

    #[test]
    fn with_reftable_a_commit_and_a_checkout_are_noticed_in_a_checkout_and_a_worktree() {
        if !git_here() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        fs::create_dir(&main).unwrap();
        let made = Command::new("git")
            .args(["init", "-q", "--ref-format=reftable"])
            .current_dir(&main)
            .output()
            .is_ok_and(|o| o.status.success());
        if !made {
            eprintln!("note: skipped: this git has no reftable backend (git 2.45 or later)");
            return;
        }
        commit(&main);
        assert!(noticed(&main, || commit(&main)), "a commit");
        let tree = dir.path().join("tree");
        run(
            &main,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "feature",
                tree.to_str().unwrap(),
            ],
        );
        assert!(noticed(&tree, || commit(&tree)), "a commit in the worktree");
        assert!(
            noticed(&tree, || run(&tree, &["checkout", "-q", "--detach"])),
            "a checkout"
        );
    }

    #[test]
    fn outside_a_checkout_nothing_is_watched_and_there_is_no_revision() {
        let dir = tempfile::tempdir().unwrap();
        let outside = Command::new("git")
            .args(["rev-parse", "--git-dir"])
            .current_dir(dir.path())
            .output()
            .map_or(true, |o| !o.status.success());
        if outside {
            assert_eq!(watched(dir.path()), Vec::<PathBuf>::new());
            assert_eq!(revision(dir.path()), None);
        }
    }
}
