//! Memory does not grow with the archive: `analyze` of a capture of microscape padded with
//! 256 MiB of another host's records takes about the memory of the capture alone (peak RSS by
//! GNU time), and far less than the archive. benches/archive-memory.sh shows the same on a
//! multi-GB archive (docs/archives.md).

use std::path::Path;

use crate::common::{self, archives};

#[test]
fn analyzing_a_large_archive_takes_no_more_memory_than_a_small_one() {
    if !common::gnu_time() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let small = tmp.path().join("small.warc.gz");
    let big = tmp.path().join("big.warc.gz");
    let site = common::microscape();
    let site = site.to_str().unwrap();
    archives::make_archives(&["big", site, small.to_str().unwrap(), "0"]);
    archives::make_archives(&[
        "big",
        site,
        big.to_str().unwrap(),
        &(256u64 << 20).to_string(),
    ]);
    let big_bytes = std::fs::metadata(&big).unwrap().len();
    assert!(big_bytes > 256 << 20);
    let peak = |file: &Path| common::peak_kib(&["analyze".as_ref(), file.as_os_str()]);
    let (Some((small_kib, _)), Some((big_kib, _))) = (peak(&small), peak(&big)) else {
        return;
    };
    // Records of 64 MiB are streamed, never held: 32 MiB of slack covers buffers and noise.
    assert!(
        big_kib < small_kib + 32 * 1024,
        "{big_bytes} bytes of archive took {big_kib} KiB, the capture alone {small_kib} KiB"
    );
    assert!(
        big_kib * 1024 < big_bytes / 4,
        "{big_kib} KiB for {big_bytes} bytes"
    );
}
