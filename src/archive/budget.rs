//! What reading one archive input may cost, in proportion to the archive itself: an archive
//! of a few kilobytes from a stranger must not fill a disk, take the memory or keep the CPU
//! busy for minutes, and one bad record must not stop the others from being read
//! (docs/archives.md, "Budgets").
//!
//! - **Disk**: the decoded bodies written into the materialised tree may total
//!   [`Budget::disk`]: 64 MiB plus `--archive-budget` (default 32) times the inputs' own size.
//!   Real captures decode to a few times their size (text compresses 5 to 10 times, images
//!   not at all); a record that would pass the budget is left out and reported
//!   (`archive-over-budget`), and the rest is read.
//! - **One record**: its body may decode to at most [`Budget::record`], 1 MiB plus 1,032 times
//!   the bytes the record takes in the archive. One layer of deflate cannot expand more than
//!   that (a 258-byte match coded in two bits), so only a body encoded twice or more (a
//!   decompression bomb) can reach it; it is stopped there, after that much work.
//! - **Small entries** of a WACZ (`pages.jsonl`, `datapackage.json`) may inflate to at most
//!   [`Budget::small_entry`]: 1 MiB plus `--archive-budget` times the package's size, and
//!   never more than 256 MiB.
//! - **Memory** grows with the number of records (an index entry each, a few hundred bytes)
//!   and of files, never with their size; a record takes at least a WARC header's worth of
//!   the archive, so memory is bounded by a multiple of the archive too (measured in
//!   docs/archives.md).
//! - **CPU** is linear: every record is inflated once to index it and once to read it, each
//!   WACZ entry is hashed once, and the decoded bytes are bounded as above.

/// The budgets of a run's archive inputs (`--archive-budget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// How many times their own size the inputs may expand into decoded bodies on disk, and a
    /// WACZ's small entries in memory. Default: 32.
    pub expansion: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            expansion: Budget::DEFAULT_EXPANSION,
        }
    }
}

impl Budget {
    pub const DEFAULT_EXPANSION: u64 = 32;

    /// What every input may hold whatever its size.
    const DISK_FLOOR: u64 = 64 << 20;
    /// What one record may decode to whatever its size.
    const RECORD_FLOOR: u64 = 1 << 20;
    /// The most a deflate stream expands: 258 bytes out per 2 bits in.
    pub const DEFLATE_RATIO: u64 = 1032;
    /// The most read of a small entry, whatever the budget.
    const SMALL_ENTRY_CAP: u64 = 256 << 20;

    /// Bytes of decoded bodies the materialised tree of inputs of `input_bytes` may hold.
    pub fn disk(&self, input_bytes: u64) -> u64 {
        Self::DISK_FLOOR.saturating_add(self.expansion.saturating_mul(input_bytes))
    }

    /// The most one record's body may decode to, from the bytes the record takes in its file.
    pub fn record(stored_bytes: u64) -> u64 {
        Self::RECORD_FLOOR.saturating_add(Self::DEFLATE_RATIO.saturating_mul(stored_bytes))
    }

    /// The most a WACZ's `pages.jsonl` or `datapackage.json` may inflate to.
    pub fn small_entry(&self, package_bytes: u64) -> u64 {
        (1u64 << 20)
            .saturating_add(self.expansion.saturating_mul(package_bytes))
            .min(Self::SMALL_ENTRY_CAP)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_grow_with_the_archive_and_the_flag() {
        let b = Budget::default();
        assert_eq!(b.disk(0), 64 << 20);
        assert_eq!(b.disk(1 << 20), (64 << 20) + (32 << 20));
        assert!(Budget { expansion: 64 }.disk(1 << 20) > b.disk(1 << 20));
        assert_eq!(Budget::record(1000), (1 << 20) + 1_032_000);
        assert_eq!(b.small_entry(1000), (1 << 20) + 32_000);
        assert_eq!(b.small_entry(1 << 40), 256 << 20);
        assert_eq!(
            Budget {
                expansion: u64::MAX
            }
            .disk(u64::MAX),
            u64::MAX
        );
    }

    #[test]
    fn a_record_may_decode_to_what_one_layer_of_deflate_can_give() {
        // The densest deflate there is: zeros at level 9 decode to almost 1,032 times their
        // size, and stay within the bound; the same bytes encoded twice do not.
        let zeros = vec![0u8; 16 << 20];
        let once = crate::deflate::gzip(&zeros, 9);
        assert!((zeros.len() as u64) <= Budget::record(once.len() as u64));
        let twice = crate::deflate::gzip(&once, 9);
        assert!((zeros.len() as u64) > Budget::record(twice.len() as u64));
    }
}
