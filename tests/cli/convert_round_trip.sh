#!/usr/bin/env bash
# JSON -> GOAL -> JSON with `choreo convert` must give back the same bytes, for every
# pattern kind and for the hand-written schedules in tests/data/mpi.
#   usage: convert_round_trip.sh CHOREO WORKDIR
set -euo pipefail
choreo=$(realpath "$1"); work=$2
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
echo "convert_round_trip: OK"
