#!/usr/bin/env bash
# MPI-4's persistent collectives through libchoreo_pmpi.so against the MPI library's own, the
# nonblocking and the blocking collective (persistent_mpi4_bench.c), 2 ranks, under MPICH and
# Open MPI, with the library's default and with CHOREO_PERSISTENT=choreo: one CSV per run in
# DIR, and per run the drop-in's ratio to the library's persistent and to the nonblocking
# collective at each size (docs/BENCHMARKS.md).
set -euo pipefail
usage() {
  cat <<'USAGE'
usage: bench/persistent_mpi4_bench.sh [-o DIR] [--reps 300] [--mpich-build DIR] [--openmpi-build DIR]
Needs persistent_mpi4_bench in both builds (scripts/build default, scripts/build openmpi).
USAGE
}
cd "$(dirname "$0")/.."
out=out/persistent-mpi4
reps=300
mpich_build=build/default
ompi_build=build/openmpi
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --mpich-build) mpich_build=$2; shift 2 ;;
    --openmpi-build) ompi_build=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "persistent_mpi4_bench.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for b in "$mpich_build" "$ompi_build"; do
  [ -x "$b/bench/persistent_mpi4_bench" ] || { echo "missing $b/bench/persistent_mpi4_bench" >&2; exit 1; }
done
mkdir -p "$out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for setting in library choreo; do
  echo "== MPICH, 2 ranks, CHOREO_PERSISTENT=$setting" >&2
  mpiexec.mpich -n 2 env CHOREO_PERSISTENT=$setting "$mpich_build/bench/persistent_mpi4_bench" \
    "$reps" >"$out/mpich-$setting.csv"
  echo "== Open MPI, 2 ranks, CHOREO_PERSISTENT=$setting" >&2
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec.openmpi -n 2 \
    -x CHOREO_PERSISTENT=$setting "$ompi_build/bench/persistent_mpi4_bench" "$reps" \
    >"$out/openmpi-$setting.csv"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# The drop-in's rows: collective, bytes, its median (us), its ratio to the library's persistent
# collective and to the nonblocking one.
for f in "$out"/*.csv; do
  echo "# $(basename "$f" .csv)"
  awk -F, '$3 == "drop-in" { printf "%-10s %8s B  %9.2f us  /library %5.2f  /nonblocking %5.2f\n", $1, $2, $4 * 1e6, $7, $8 }' "$f"
done
