#!/bin/sh
# Submits a whole batch: the array over LIST in SHARDS shards (at most PARALLEL at once), then
# the merge, which waits for every task to succeed.
#
#   contrib/slurm/submit.sh sites.txt /shared/out/batch /shared/out/collection 32 8 [OPTIONS…]
#
# OPTIONS go to every `webdiet batch` (e.g. --measure-sample 1000 --seed 7).
set -eu
if [ $# -lt 5 ]; then
    echo "usage: $0 LIST OUT REPORT SHARDS PARALLEL [batch options…]" >&2
    exit 2
fi
list=$1 out=$2 report=$3 shards=$4 parallel=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
export WEBDIET_LIST="$list" WEBDIET_OUT="$out" WEBDIET_REPORT="$report" \
    WEBDIET_SHARDS="$shards" WEBDIET_ARGS="$*"
array=$(sbatch --parsable --array="0-$((shards - 1))%$parallel" "$here/batch.sbatch")
merge=$(sbatch --parsable --dependency="afterok:$array" "$here/merge.sbatch")
echo "array job $array, merge job $merge"
echo "if a task fails: fix its unit, then"
echo "  WEBDIET_LIST=$list WEBDIET_OUT=$out WEBDIET_SHARDS=$shards sbatch --array=INDEX $here/batch.sbatch"
echo "  WEBDIET_OUT=$out WEBDIET_REPORT=$report sbatch --dependency=afterok:RERUN_ID $here/merge.sbatch"
