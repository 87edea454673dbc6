#!/usr/bin/env bash
# JSON -> GOAL -> JSON with `choreo convert` must give back the same bytes, for every
# pattern kind and for the hand-written schedules in tests/data/mpi; GOAL -> .cbs -> GOAL too,
# for generated collectives.
#   usage: convert_round_trip.sh CHOREO WORKDIR
set -euo pipefail
choreo=$(realpath "$1"); work=$2
data=$(cd "$(dirname "$0")/../data" && pwd)
data=$(dirname "$(realpath "$0")")/../data
rm -rf "$work"; mkdir -p "$work"; cd "$work"
for kind in alltoall gather scatter triangle; do
  "$choreo" pattern "$kind" --ranks 7 --bytes 1000 -o "$kind.pattern.json" >/dev/null
  "$choreo" schedule --algo direct "$kind.pattern.json" -o "$kind.json" >/dev/null
done
cp "$data"/mpi/*.json .
schedules=(alltoall.json gather.json scatter.json triangle.json)
for f in "$data"/mpi/*.json; do schedules+=("$(basename "$f")"); done
for json in "${schedules[@]}"; do
  "$choreo" convert "$json" -o "${json%.json}.goal" >/dev/null
  "$choreo" convert "${json%.json}.goal" -o "${json%.json}.back.json" >/dev/null
  "$choreo" convert "${json%.json}.back.json" -o "${json%.json}.again.json" >/dev/null
  # The first write normalises the hand-written spelling; from then on it is a fixed point,
  # and the schedule read back must equal the original (compared as choreo writes them).
  cmp "${json%.json}.back.json" "${json%.json}.again.json"
  "$choreo" convert "$json" -o "${json%.json}.norm.json" >/dev/null
  cmp "${json%.json}.norm.json" "${json%.json}.back.json"
done
# GOAL -> .cbs -> GOAL gives back the same bytes for generated collectives (ids are program
# positions, which a .cbs keeps), including first-of groups (allreduce:resilient); a .cbs
# written by `choreo generate` is the one `choreo convert` writes, and .cbs -> .cbs is a copy.
for spec in allreduce:recdbl:ranks=12:bytes=64 allreduce:resilient:ranks=8:bytes=64:T=1 \
    bcast:kary_pipeline:ranks=9:bytes=100000 alltoall:bruck:ranks=7:bytes=10 \
    barrier:dissemination:ranks=5; do
  name=${spec//[:=]/_}
  "$choreo" generate "$spec" -o "$name.goal" >/dev/null
  "$choreo" generate "$spec" -o "$name.cbs" >/dev/null
  "$choreo" convert "$name.goal" -o "$name.from_goal.cbs" >/dev/null
  "$choreo" convert "$name.from_goal.cbs" -o "$name.back.goal" >/dev/null
  cmp "$name.goal" "$name.back.goal"
  cmp "$name.cbs" "$name.from_goal.cbs"
  "$choreo" convert "$name.cbs" -o "$name.copy.cbs" >/dev/null
  cmp "$name.cbs" "$name.copy.cbs"
  "$choreo" convert "$name.cbs" -o "$name.json" >/dev/null
  "$choreo" convert "$name.json" -o "$name.from_json.cbs" >/dev/null
  cmp "$name.cbs" "$name.from_json.cbs"
done
# A schedule that fails validation is still written, without the validated flag, so that
# `choreo sim` validates it and says what is wrong; --no-validate is the only way past.
"$choreo" convert "$data/bad/deadlock.goal" -o deadlock.cbs 2>deadlock.note >/dev/null
grep -q "deadlock.cbs is written without the validated flag: .*deadlock" deadlock.note
if "$choreo" sim deadlock.cbs >/dev/null 2>deadlock.err; then
  echo "convert_round_trip: choreo sim ran an unvalidated .cbs that deadlocks" >&2
  exit 1
fi
grep -q "deadlock" deadlock.err
echo "convert_round_trip: OK"
