//! Many small records cost in proportion to their number: `analyze` of an archive of N tiny
//! pages takes memory that grows by a few KiB a record, the same from 2,500 records to 10,000
//! (no part of the reading holds more per record as the archive grows). Time is measured by
//! benches/archive-scale.sh, not here (docs/archives.md, "Budgets").

use crate::common::{self, archives};

/// What one more record may add to the peak: the index entry, the capture's facts, the site's
/// file and the inventory's page (about 3 KiB measured; docs/archives.md).
const KIB_PER_RECORD: u64 = 6;

#[test]
fn memory_grows_linearly_with_the_number_of_records() {
    if !common::gnu_time() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let peak = |n: u64| {
        let file = tmp.path().join(format!("many-{n}.warc.gz"));
        archives::make_archives(&["many", file.to_str().unwrap(), &n.to_string()]);
        common::peak_kib(&["analyze".as_ref(), "--quiet".as_ref(), file.as_os_str()])
            .map(|(kib, _)| kib)
    };
    let (Some(small), Some(big)) = (peak(2_500), peak(10_000)) else {
        return;
    };
    let per_record = big.saturating_sub(small) / 7_500;
    assert!(
        big > small,
        "10,000 records took no more than 2,500 ({big} KiB)"
    );
    assert!(
        per_record <= KIB_PER_RECORD,
        "{per_record} KiB a record (2,500 records: {small} KiB, 10,000: {big} KiB)"
    );
}
