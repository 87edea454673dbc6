#!/usr/bin/env bash
# Paper 002's Tables 1-3 on this machine: choreo's block-cyclic redistribution (derived
# datatypes and MPI_Pack/MPI_Unpack) side by side with ScaLAPACK's pdgemr2d, on the issue's
# four cases and 2000x2000 / 4000x4000 doubles, with MPICH on 2 ranks (1x2 grids) and Open MPI
# on 4 ranks (2x2 grids, oversubscribed on this 2-core machine: it measures overheads).
# Every result is verified element by element. Writes DIR/redist.csv and DIR/redist.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: bench/redist_bench.sh [-o DIR] [--shapes 2000x2000,4000x4000] [--reps 10]
                             [--mpich-build DIR] [--openmpi-build DIR]

Needs choreo-bench-redist in both builds (scripts/build default and scripts/build openmpi,
with libscalapack-mpich-dev and libscalapack-openmpi-dev installed).
USAGE
}

cd "$(dirname "$0")/.."
out=out/redist
shapes=2000x2000,4000x4000
reps=10
mpich_build=build/default
ompi_build=build/openmpi
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --mpich-build) mpich_build=$2; shift 2 ;;
    --openmpi-build) ompi_build=$2; shift 2 ;;
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
echo "== MPICH, 2 ranks" >&2
mpiexec.mpich -n 2 "$mpich_build/bench/choreo-bench-redist" --shapes "$shapes" --reps "$reps" -o "$csv"
echo "== Open MPI, 4 ranks (oversubscribed)" >&2
mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4 \
  "$ompi_build/bench/choreo-bench-redist" --shapes "$shapes" --reps "$reps" -o "$csv"

# One Markdown row per case: the three methods' medians, the speed-ups, comm sets, memory.
python3 - "$csv" >"$out/redist.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cases = {}
for r in rows:
    key = (r["mpi"].split(":")[0].split(" Version")[0], r["ranks"], r["shape"], r["from"], r["to"])
    cases.setdefault(key, {})[r["method"]] = r
ms = lambda s: f"{float(s) * 1e3:.2f}"
mib = lambda b: "?" if int(b) < 0 else f"{int(b) / 2**20:.2f}"
print("| MPI | ranks | shape | from -> to | pdgemr2d ms | datatype ms | pack ms | speed-up datatype | speed-up pack "
      "| comm sets full / reduced ms | comm sets % of datatype | extra MiB pdgemr2d / datatype / pack (array MiB per rank) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for (mpi, ranks, shape, f, t), m in cases.items():
    p, d, k = m["pdgemr2d"], m["datatype"], m["pack"]
    share = 100 * float(d["commsets_reduced_s"]) / float(d["median_s"])
    print(f"| {mpi} | {ranks} | {shape} | ({f}) -> ({t}) | {ms(p['median_s'])} | {ms(d['median_s'])} | {ms(k['median_s'])} "
          f"| {float(d['speedup_vs_pdgemr2d']):.1f}x | {float(k['speedup_vs_pdgemr2d']):.1f}x "
          f"| {ms(d['commsets_full_s'])} / {ms(d['commsets_reduced_s'])} | {share:.2f}% "
          f"| {mib(p['peak_extra_bytes'])} / {mib(d['peak_extra_bytes'])} / {mib(k['peak_extra_bytes'])} "
          f"({int(d['array_bytes_per_rank']) / 2**20:.0f}) |")
PY
cat "$out/redist.md"
