#!/usr/bin/env bash
# choreo's redistribution side by side with ScaLAPACK's pdgemr2d (docs/BENCHMARKS.md): the
# issue's four cases on 2000x2000 doubles, ScaLAPACK's own pdgemr2d, choreo's drop-in
# (libchoreo_scalapack.so) and the C++ RedistPlan with each data path (auto, datatype, pack,
# shared), interleaved in one run on the same arrays, every element checked. Runs:
#   MPICH, 2 ranks on a 1x2 grid: bound to a core each, unbound, and both on one core (the
#   binding effect, docs/redistribution.md);
#   Open MPI, 2 ranks on a 1x2 grid bound to a core each, and 4 ranks on a 2x2 grid
#   (oversubscribed: 4 ranks on 2 cores);
# then one rank's plan at 1024 and 4096 ranks against the plan of every rank pair.
# Writes DIR/redist.csv, DIR/redist.md (medians and speed-ups), DIR/plan.csv.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: bench/redist_bench.sh [-o DIR] [--reps 30] [--n 2000] [--mpich-build DIR]
                             [--openmpi-build DIR] [--no-plan]

Needs choreo-bench-redist in both builds (scripts/build default, scripts/build openmpi, with
libscalapack-mpich-dev and libscalapack-openmpi-dev installed) and choreo-bench-redist-plan.
USAGE
}

cd "$(dirname "$0")/.."
out=out/redist
reps=30
n=2000
mpich_build=build/default
ompi_build=build/openmpi
plan=1
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --mpich-build) mpich_build=$2; shift 2 ;;
    --openmpi-build) ompi_build=$2; shift 2 ;;
    --no-plan) plan=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "redist_bench.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for b in "$mpich_build" "$ompi_build"; do
  [ -x "$b/bench/choreo-bench-redist" ] || { echo "missing $b/bench/choreo-bench-redist" >&2; exit 1; }
done

mkdir -p "$out"
csv=$out/redist.csv
rm -f "$csv"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# glibc's malloc with its dynamic thresholds returns ScaLAPACK's per-call buffers (about 23 MiB
# here) to the kernel after a call, depending on what else the process allocated, and the next
# call pays their page faults: pdgemr2d then takes 100-240 ms instead of 8-24 ms on the same
# arrays (docs/BENCHMARKS.md, paper 002). Fixed thresholds keep them mapped, so pdgemr2d runs
# at its best; choreo keeps its buffers in its plans either way.
export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456
bench() { "$@" --n "$n" --reps "$reps" -o "$csv"; }
echo "== MPICH, 2 ranks, bound" >&2
bench mpiexec.mpich -bind-to core -n 2 "$mpich_build/bench/choreo-bench-redist" --label bound
echo "== MPICH, 2 ranks, unbound" >&2
bench mpiexec.mpich -bind-to none -n 2 "$mpich_build/bench/choreo-bench-redist" --label unbound
echo "== MPICH, 2 ranks on one core" >&2
bench mpiexec.mpich -bind-to user:0,0 -n 2 "$mpich_build/bench/choreo-bench-redist" \
  --label one-core
echo "== Open MPI, 2 ranks, bound" >&2
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 bench mpiexec.openmpi \
  --bind-to core -n 2 "$ompi_build/bench/choreo-bench-redist" --label bound
echo "== Open MPI, 4 ranks (oversubscribed)" >&2
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 bench mpiexec.openmpi \
  --oversubscribe --bind-to none -n 4 "$ompi_build/bench/choreo-bench-redist" --label unbound
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
if [ "$plan" -eq 1 ]; then
  echo "== one rank's plan at 1024 and 4096 ranks" >&2
  "$mpich_build/bench/choreo-bench-redist-plan" --ranks 1024,4096 -o "$out/plan.csv"
fi

# One Markdown row per run and case: the medians (ms) and each method's speed-up over pdgemr2d.
python3 - "$csv" >"$out/redist.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
runs = {}
for r in rows:
    mpi = r["mpi"].split(" Version")[0].split(":")[0]
    key = (mpi, r["grid"], r["binding"], r["case"])
    runs.setdefault(key, {})[r["method"]] = r
methods = ["pdgemr2d", "choreo pdgemr2d", "auto", "datatype", "pack", "shared"]
print("| MPI | grid | ranks bound | case | " + " | ".join(f"{m} ms" for m in methods) +
      " | choreo pdgemr2d / pdgemr2d |")
print("|---|---|---|---|" + "---|" * (len(methods) + 1))
for (mpi, grid, binding, case), m in runs.items():
    cells = []
    for name in methods:
        r = m.get(name)
        cells.append("-" if r is None else
                     f"{float(r['median_s']) * 1e3:.2f} [{float(r['q1_s']) * 1e3:.1f}, {float(r['q3_s']) * 1e3:.1f}]")
    speed = float(m["choreo pdgemr2d"]["speedup_vs_pdgemr2d"])
    print(f"| {mpi} | {grid} | {binding} | {case} | " + " | ".join(cells) + f" | **{speed:.1f}x** |")
PY
cat "$out/redist.md"
