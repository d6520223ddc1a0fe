//! Image results kept across the sites of one process: `batch` audits its units one after
//! the other, and the sites of one archive often share images (the same buttons, bullets and
//! "under construction" signs). A GIF, PNG or JPEG met again, with the same
//! options, is not worked on again: its verified result is taken from here. The conversions
//! are deterministic (the same bytes and options give the same result on every run,
//! `docs/images.md`), so a unit's files are what they would have been alone; only its CPU
//! times say where the work was done (0 for a result taken from here).
//!
//! Memory is bounded: results are kept until their outputs hold [`Memo::new`]'s limit in
//! bytes; past it the results used longest ago make room for the new one. An image shared by
//! many sites is used again and again and stays; a site's own images give way to the next
//! sites' (when nothing was evicted, a collection whose second half shares other images than
//! its first found a memo full of the first half's).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::image::{Conversion, Recompressed};

/// What a result is for: the key is the digest of this, the options and the input's bytes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Work {
    /// A GIF converted ([`crate::image::convert_gif`]).
    Gif,
    /// A site's own PNG or JPEG recompressed, or a PNG also offered as a WebP.
    Png,
    Jpeg,
    PngOrWebp,
}

/// One kept result.
#[derive(Debug, Clone)]
pub(super) enum Kept {
    Gif(Arc<Conversion>),
    Lossless(Arc<Recompressed>),
    PngOrWebp(Arc<(Recompressed, Recompressed)>),
}

impl Kept {
    /// The bytes it holds (outputs and reasons), for the limit.
    fn bytes(&self) -> usize {
        let recompressed = |r: &Recompressed| {
            r.bytes.as_ref().map_or(0, Vec::len) + r.reason.len() + r.dropped.len() * 8
        };
        match self {
            Kept::Gif(c) => {
                c.png.as_ref().map_or(0, Vec::len)
                    + c.webp.as_ref().map_or(0, Vec::len)
                    + c.reason.len()
            }
            Kept::Lossless(r) => recompressed(r),
            Kept::PngOrWebp(pair) => recompressed(&pair.0) + recompressed(&pair.1),
        }
    }
}

/// The kept results of one process.
#[derive(Debug)]
pub struct Memo {
    limit: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Each result with when it was last put or taken (`clock`'s reading).
    kept: HashMap<[u8; 32], (Kept, u64)>,
    bytes: usize,
    /// Counts puts and look-ups.
    clock: u64,
}

impl Memo {
    /// A memo that keeps results up to outputs of `limit` bytes, the most recently used.
    pub fn new(limit: usize) -> Memo {
        Memo {
            limit,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The key of `work` on `input` with `options` (a description of every option that can
    /// change the result).
    fn key(work: Work, options: &str, input: &[u8]) -> [u8; 32] {
        let work = format!("{work:?}");
        crate::digest::sha256(&[b"webdiet memo", work.as_bytes(), options.as_bytes(), input])
    }

    /// The result kept under `key`, if any (now the most recently used).
    fn get(&self, key: &[u8; 32]) -> Option<Kept> {
        let inner = &mut *self.lock();
        inner.clock += 1;
        let (kept, used) = inner.kept.get_mut(key)?;
        *used = inner.clock;
        Some(kept.clone())
    }

    /// Keeps `kept` under `key`, the results used longest ago making room for it; a result
    /// larger than the limit is not kept.
    fn put(&self, key: [u8; 32], kept: Kept) {
        let size = kept.bytes();
        let inner = &mut *self.lock();
        if size > self.limit || inner.kept.contains_key(&key) {
            return;
        }
        if inner.bytes + size > self.limit {
            // Full: the results used longest ago go until a quarter of the limit is free, so
            // that the sort (of thousands of results, under the lock) runs once per many puts,
            // not at each.
            let mut by_use: Vec<([u8; 32], u64)> = inner
                .kept
                .iter()
                .map(|(k, (_, used))| (*k, *used))
                .collect();
            by_use.sort_unstable_by_key(|&(_, used)| used);
            let room = self.limit - self.limit / 4;
            for (oldest, _) in by_use {
                if inner.bytes + size <= room {
                    break;
                }
                if let Some((gone, _)) = inner.kept.remove(&oldest) {
                    inner.bytes -= gone.bytes();
                }
            }
        }
        inner.clock += 1;
        inner.bytes += size;
        inner.kept.insert(key, (kept, inner.clock));
    }

    /// The results kept, and the bytes they hold.
    pub fn held(&self) -> (usize, usize) {
        let inner = self.lock();
        (inner.kept.len(), inner.bytes)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic elsewhere while the lock was held leaves a map that is still whole.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A result a memo keeps.
pub(super) trait Keep: Sized {
    fn wrap(this: Arc<Self>) -> Kept;
    fn unwrap(kept: Kept) -> Option<Arc<Self>>;
}

/// `Keep` for a result type held in one variant of [`Kept`].
macro_rules! keep {
    ($result:ty, $variant:ident) => {
        impl Keep for $result {
            fn wrap(this: Arc<Self>) -> Kept {
                Kept::$variant(this)
            }
            fn unwrap(kept: Kept) -> Option<Arc<Self>> {
                match kept {
                    Kept::$variant(result) => Some(result),
                    _ => None,
                }
            }
        }
    };
}

keep!(Conversion, Gif);
keep!(Recompressed, Lossless);
keep!((Recompressed, Recompressed), PngOrWebp);

/// `work` on `input` (with `options`, described), from `memo` when it holds the result (then
/// `true`), otherwise computed by `run` and kept; without a memo always computed.
pub(super) fn through<T: Keep>(
    memo: Option<&Memo>,
    work: Work,
    options: impl std::fmt::Debug,
    input: &[u8],
    run: impl FnOnce() -> T,
) -> (Arc<T>, bool) {
    let Some(memo) = memo else {
        return (Arc::new(run()), false);
    };
    let key = Memo::key(work, &format!("{options:?}"), input);
    if let Some(found) = memo.get(&key).and_then(T::unwrap) {
        return (found, true);
    }
    let result = Arc::new(run());
    memo.put(key, T::wrap(result.clone()));
    (result, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::Recompression;

    fn recompressed(bytes: usize) -> Recompressed {
        Recompressed {
            outcome: Recompression::Optimized,
            reason: String::new(),
            bytes: Some(vec![0; bytes]),
            dropped: Vec::new(),
        }
    }

    #[test]
    fn a_result_is_computed_once_per_input_and_options_and_the_memo_holds_no_more_than_its_limit() {
        let memo = Memo::new(100);
        let mut runs = 0;
        let mut ask = |options: &str, input: &[u8], size: usize| {
            let run = || {
                runs += 1;
                recompressed(size)
            };
            through(Some(&memo), Work::Png, options, input, run).1
        };
        assert!(!ask("default", b"a", 60));
        assert!(ask("default", b"a", 60), "the same input and options: kept");
        assert!(!ask("default", b"b", 30));
        assert!(ask("default", b"b", 30));
        assert_eq!(memo.held(), (2, 90));
        assert!(!ask("max", b"a", 20), "other options: another result");
        // 60 + 30 + 20 would pass the limit of 100: `a`, used longest ago, made room.
        assert_eq!(memo.held(), (2, 50));
        assert!(ask("default", b"b", 30), "used since: still kept");
        assert!(!ask("default", b"a", 60), "made room: computed again");
        assert!(!ask("default", b"huge", 101), "larger than the limit");
        assert!(!ask("default", b"huge", 101), "and not kept");
        assert_eq!(runs, 6);
        assert!(memo.held().1 <= 100);
    }

    #[test]
    fn the_result_used_most_recently_stays_when_others_make_room() {
        // Room for ten results: twenty sites fill it twice over.
        let memo = Memo::new(400);
        let ask = |input: &[u8]| {
            through(Some(&memo), Work::Gif, "default", input, || {
                recompressed(40)
            })
        };
        ask(b"shared");
        for site in 0..20u8 {
            assert!(ask(b"shared").1, "the image every site shares is kept");
            assert!(!ask(&[site]).1, "each site's own image is new");
            assert!(memo.held().1 <= 400);
        }
        // Full, the memo made room for a quarter of its limit at once, not one result.
        assert!(memo.held().1 < 400, "{:?}", memo.held());
    }
}
