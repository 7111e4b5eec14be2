#!/usr/bin/env bash
# Submits a cohort to Slurm as a job array of SHARDS tasks, one shard each, and a merge job
# that joins their reports into OUT/merged once every task succeeded; prints both job ids.
#
#   examples/slurm/submit.sh PLAYBOOK OUT SHARDS [wbplay run options…]
#
# Run it again with the same OUT to finish a cohort whose tasks failed or were cancelled: every
# shard resumes from the journal of its folder (finished studies are not done again, shards
# that were complete are done in a moment) and the merge runs again.
#
# WBPLAY says how wbplay is started on the nodes (default `npx wbplay`, from the project folder
# the job is submitted from); WBPLAY_SBATCH picks the task script (default cohort.sbatch beside
# this file; cohort-mitk.sbatch for real MITK Workbenches). sbatch passes the environment on,
# so WBPLAY_COHORT, WORKBENCH_TOKEN and MITK_WORKBENCH reach the tasks. OUT and the data must
# be on a filesystem every node sees.
set -euo pipefail

if [ $# -lt 3 ] || ! [[ $3 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 PLAYBOOK OUT SHARDS [wbplay run options…]" >&2
  exit 2
fi
playbook=$1
out=$2
shards=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
task=${WBPLAY_SBATCH:-$here/cohort.sbatch}

mkdir -p "$out/logs"
# A merged report is only ever that of the last submission: one left from an earlier submission
# would stand for a cohort this one may not complete.
rm -rf "$out/merged"
array=$(sbatch --parsable --array="1-$shards" --output="$out/logs/shard-%a.log" "$task" "$playbook" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$out/logs/merge.log" "$here/merge.sbatch" "$out" "$shards")
merge=${merge%%;*}
echo "array $array: $shards shards of $playbook into $out/shard-1 … $out/shard-$shards"
echo "merge $merge: into $out/merged once every shard succeeded"
