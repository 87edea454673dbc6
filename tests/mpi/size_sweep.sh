#!/usr/bin/env bash
# choreo-mpi run --generate and collective --sizes: one verified run per power of two, each
# moving what the closed form says (2 ranks: allgather and alltoall send one message of the
# size each way, 2 x size per iteration), and OSU's columns on stdout.
set -euo pipefail
# usage: size_sweep.sh CHOREO_MPI WORK MPIEXEC [ARGS...] (the launcher up to its -n flag)
choreo_mpi=$1 work=$2
shift 2
mpiexec=("$@")
rm -rf "$work" && mkdir -p "$work"
fail() { echo "size_sweep: $*" >&2; exit 1; }
check() {  # NAME FILE
  local sizes
  sizes=$(jq -r '[.runs[] | .bytes_per_iteration / 2] | map(tostring) | join(" ")' "$2")
  [ "$(jq -r .format "$2")" = choreo.sweep/1 ] || fail "$1: not a choreo.sweep/1 document"
  [ "$sizes" = "1 2 4 8 16 32 64 128 256 512 1024" ] || fail "$1: bytes per iteration / 2 are $sizes"
  jq -e 'all(.runs[]; .bytes_verified >= .bytes_per_iteration * (.warmup + .repetitions))' "$2" > /dev/null ||
    fail "$1: a run verified fewer bytes than it moved"
}
"${mpiexec[@]}" 2 "$choreo_mpi" run --generate allgather:ring --sizes 1:1K --reps 3 --warmup 1 \
  -o "$work/run.json" > "$work/run.txt"
check "run --generate allgather:ring" "$work/run.json"
"${mpiexec[@]}" 2 "$choreo_mpi" collective --call alltoall --sizes 1:1K --reps 3 --warmup 1 --json > "$work/coll.json"
check "collective --call alltoall" "$work/coll.json"
# OSU's layout: comment lines, then "size latency min max", one line per size.
grep -q '^# Size *Latency(us) *Min(us) *Max(us)$' "$work/run.txt" || fail "no OSU header"
[ "$(grep -cE '^[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$work/run.txt")" = 11 ] || fail "not 11 size lines"
echo "size_sweep: OK"
