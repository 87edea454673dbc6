#!/usr/bin/env bash
# choreo::persist::bcast_init told the torus (Options::torus; the "choreo_torus" hint through
# libchoreo_pmpi.so) against MPI_Bcast, under SimGrid SMPI on the same FX10-like torus as
# bench/persist_smpi.sh (5 GB/s, 1 us per link, SMPI's latency and bandwidth factors 1, no TCP
# ACK traffic, MPICH's collective selection). Subjects: the default (the torus-mapped trees from
# 64 KiB, measured against the library's own), the torus-mapped trees named, the rotated-heap
# multitree, the k-ary pipeline and the binomial tree: the request itself, as a program runs it,
# not a generated schedule. Simulated time: the figures do not depend on the machine's load.
# Prints the CSV (bytes, subject, median seconds, ratio to MPI_Bcast, what ran) to DIR/results.csv
# and a table of the ratios.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: bench/persist_bcast_init_smpi.sh [-o DIR] [--torus 3x3x3] [--sizes 65536:4194304] [--reps 3]

Needs `scripts/build default` (its SMPI sub-build of bench/torus_bcast_init.cpp).
USAGE
}

cd "$(dirname "$0")/.."
out=out/persist-bcast-init-smpi torus=3x3x3 sizes=65536:4194304 reps=3
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --torus) torus=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "persist_bcast_init_smpi.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
choreo=build/default/tools/choreo program=build/default/smpi/bench/torus_bcast_init
for tool in "$choreo" "$program"; do
  [ -x "$tool" ] || { echo "missing $tool: run scripts/build default" >&2; exit 1; }
done
command -v smpirun > /dev/null || { echo "smpirun missing: apt-get install simgrid" >&2; exit 1; }
mkdir -p "$out"
IFS=x read -r x y z <<< "$torus"
ranks=$((x * y * z))
platform=$out/torus-$torus.xml
$choreo platform torus --dims "$torus" --bw 5GBps --lat 1us -o "$platform" > /dev/null
echo "persist_bcast_init_smpi.sh: $ranks ranks on torus $torus, $sizes bytes, $reps reps" >&2
smpirun -platform "$platform" -hostfile "${platform%.xml}.hosts" -np "$ranks" \
  --cfg=smpi/simulate-computation:no --cfg=smpi/test:0 --cfg=smpi/coll-selector:mpich \
  --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 --cfg=network/crosstraffic:0 \
  --log=xbt_cfg.thres:warning --log=smpi_config.thres:warning --log=smpi_coll.thres:warning \
  "$program" "$torus" "${sizes%%:*}" "${sizes##*:}" "$reps" \
  default multitree_torus multitree kary_pipeline binomial > "$out/results.csv" 2> "$out/log.txt" \
  || { tail -5 "$out/log.txt" >&2; exit 1; }
grep -q FAILED "$out/results.csv" && { grep FAILED "$out/results.csv" >&2; exit 1; }
# One row per size: MPI_Bcast's median and each subject's ratio to it.
awk -F, 'NR > 1 { if (!($1 in us)) order[++n] = $1; ratio[$1, $2] = $4
    if ($2 == "MPI_Bcast") us[$1] = $3 * 1e6 }
  END { printf "%10s %12s %8s %8s %8s %8s %8s\n", "bytes", "MPI_Bcast us", "default", "torus",
          "heaps", "k-ary", "binomial"
        for (i = 1; i <= n; ++i) { b = order[i]
          printf "%10d %12.1f %8s %8s %8s %8s %8s\n", b, us[b], ratio[b, "default"],
            ratio[b, "multitree_torus"], ratio[b, "multitree"], ratio[b, "kary_pipeline"],
            ratio[b, "binomial"] } }' "$out/results.csv"
