//! Image results kept across the sites of one process: `batch` audits its units one after
//! the other, and the sites of one archive often share images (the same buttons, bullets and
//! "under construction" signs). A GIF, PNG or JPEG met again, with the same
//! options, is not worked on again: its verified result is taken from here. The conversions
//! are deterministic (the same bytes and options give the same result on every run,
//! `docs/images.md`), so a unit's files are what they would have been alone; only its CPU
//! times say where the work was done (0 for a result taken from here).
//!
//! Memory is bounded: results are kept until their outputs hold [`Memo::new`]'s limit in
//! bytes, and are then not kept any more (nothing is evicted: a batch's common images are met
//! early, in its first sites).

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
    kept: HashMap<[u8; 32], Kept>,
    bytes: usize,
}

impl Memo {
    /// A memo that keeps results until their outputs hold `limit` bytes.
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

    /// The result kept under `key`, if any.
    fn get(&self, key: &[u8; 32]) -> Option<Kept> {
        self.lock().kept.get(key).cloned()
    }

    /// Keeps `kept` under `key` while the limit allows.
    fn put(&self, key: [u8; 32], kept: Kept) {
        let size = kept.bytes();
        let mut inner = self.lock();
        if inner.bytes + size <= self.limit && !inner.kept.contains_key(&key) {
            inner.bytes += size;
            inner.kept.insert(key, kept);
        }
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
        assert!(!ask("max", b"a", 60), "other options: another result");
        assert!(!ask("default", b"b", 30));
        assert!(ask("default", b"b", 30));
        // 60 + 30 held: a third of 30 would pass the limit of 100, so it is not kept.
        assert!(!ask("default", b"c", 30));
        assert!(!ask("default", b"c", 30));
        assert_eq!(runs, 5);
        assert_eq!(memo.held(), (2, 90));
    }
}
