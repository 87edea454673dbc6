#!/usr/bin/env bash
# Jitter-resilient allreduce on real MPI (docs/jitter.md, "Real MPI"): p50/p99 latency of the
# plain butterfly (T = 0), the resilient one (T = 1..K) and MPI_Allreduce, without and with
# injected noise. MPICH on 2 ranks (its ranks busy-poll: 4 of them on a 2-core machine would
# measure the OS scheduler) and Open MPI on 4 ranks (oversubscribed), if --ompi-build has it.
#   bench/resilient_bench.sh [--build build/default] [--ompi-build build/openmpi] [--out out/resilient]
#                            [-- options for resilient_bench, e.g. --calls 5000 --count 64
#                                --duration-us 100 --period-us 10000]
set -euo pipefail
build=build/default ompi_build=build/openmpi out=out/resilient
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --ompi-build) ompi_build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "resilient_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"

run() {  # library build-dir mpiexec [flags...] ; the bench options are in "${bench_options[@]}"
  local library=$1 build_dir=$2
  shift 2
  echo "== $library: $* $build_dir/bench/resilient_bench ${bench_options[*]}"
  "$@" "$build_dir/bench/resilient_bench" "${bench_options[@]}" --csv "$out/$library.csv"
}
bench_options=("$@")
run mpich "$build" mpiexec.mpich -n 2
if [[ -x $ompi_build/bench/resilient_bench ]]; then
  run openmpi "$ompi_build" mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4
else
  echo "== openmpi: skipped, no $ompi_build/bench/resilient_bench (cmake --preset openmpi)" >&2
fi
echo "CSV: $out/*.csv"
