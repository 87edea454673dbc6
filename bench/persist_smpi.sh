#!/usr/bin/env bash
# Paper 003's broadcast trees on a simulated torus: choreo's binomial, k-ary pipeline and
# multi-tree schedules (the rotated-heap trees and, where the generator can map them, the
# torus-mapped Trinaryx3 trees) against the MPI library's MPI_Bcast, all under SimGrid SMPI
# on the same FX10-like torus as bench/validate_model.sh (5 GB/s, 1 us per link, SMPI's
# latency and bandwidth factors 1, no TCP ACK traffic). SMPI has no MPI_Bcast_init; on this
# machine MPICH's MPI_Bcast_init takes as long as its MPI_Bcast (docs/BENCHMARKS.md).
# Simulated time: the figures do not depend on the load of the machine running it.
# Prints per size the median time of each and its ratio to MPI_Bcast; writes DIR/results.csv.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: bench/persist_smpi.sh [-o DIR] [--torus 4x4x4] [--sizes 65536:16777216] [--reps 3]

Needs `scripts/build default` (its SMPI build of choreo-mpi).
USAGE
}

cd "$(dirname "$0")/.."
out=out/persist-smpi torus=4x4x4 sizes=65536:16777216 reps=3
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --torus) torus=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "persist_smpi.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

choreo=build/default/tools/choreo smpi_mpi=build/default/smpi/tools/choreo-mpi
for tool in "$choreo" "$smpi_mpi"; do
  [ -x "$tool" ] || { echo "missing $tool: run scripts/build default" >&2; exit 1; }
done
command -v smpirun > /dev/null || { echo "smpirun missing: apt-get install simgrid" >&2; exit 1; }
mkdir -p "$out/schedules" "$out/runs" "$out/log"

IFS=x read -r x y z <<< "$torus"
ranks=$((x * y * z))
platform=$out/torus-$torus.xml
$choreo platform torus --dims "$torus" --bw 5GBps --lat 1us -o "$platform" > /dev/null
launcher=(smpirun -platform "$platform" -hostfile "${platform%.xml}.hosts" -np "$ranks"
  --cfg=smpi/simulate-computation:no --cfg=smpi/test:0 --cfg=smpi/coll-selector:mpich
  --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 --cfg=network/crosstraffic:0
  --log=xbt_cfg.thres:warning --log=smpi_config.thres:warning --log=smpi_coll.thres:warning)

# name=generator spec (without ranks and bytes)
subjects=("binomial=bcast:binomial" "kary_pipeline=bcast:kary_pipeline:arity=3"
  "multitree=bcast:multitree" "multitree_torus=bcast:multitree:x=$x:y=$y:z=$z")
csv=$out/results.csv
echo "torus,ranks,bytes,implementation,median_seconds" > "$csv"
median_of() { jq -r .seconds.median "$1"; }

min=${sizes%%:*} max=${sizes##*:}
printf '%10s %14s' bytes "MPI_Bcast us"
for s in "${subjects[@]}"; do printf ' %16s %6s' "${s%%=*} us" ratio; done
printf '\n'
for ((bytes = min; bytes <= max; bytes *= 4)); do
  echo "torus $torus, $bytes B" >&2
  pattern=$out/schedules/bcast-$bytes.pattern.json
  $choreo pattern scatter --ranks "$ranks" --bytes "$bytes" -o "$pattern" > /dev/null
  result=$out/runs/mpi_bcast-$bytes.json
  "${launcher[@]}" "$smpi_mpi" collective --call bcast "$pattern" --warmup 1 --reps "$reps" \
    -o "$result" > /dev/null 2> "$out/log/mpi_bcast-$bytes.log"
  reference=$(median_of "$result")
  echo "$torus,$ranks,$bytes,MPI_Bcast,$reference" >> "$csv"
  printf '%10d %14.1f' "$bytes" "$(awk -v t="$reference" 'BEGIN { print t * 1e6 }')"
  for s in "${subjects[@]}"; do
    name=${s%%=*} spec=${s#*=}
    schedule=$out/schedules/$name-$bytes.json result=$out/runs/$name-$bytes.json median=NA
    if $choreo generate "$spec:ranks=$ranks:bytes=$bytes" -o "$schedule" > /dev/null \
      2> "$out/log/$name-$bytes.log" &&
      "${launcher[@]}" "$smpi_mpi" run "$schedule" --warmup 1 --reps "$reps" -o "$result" \
        > /dev/null 2>> "$out/log/$name-$bytes.log"; then
      median=$(median_of "$result")
      awk -v t="$median" -v r="$reference" 'BEGIN { printf " %16.1f %6.2f", t * 1e6, t / r }'
    else
      printf ' %16s %6s' "failed" "-"
    fi
    echo "$torus,$ranks,$bytes,$name,$median" >> "$csv"
  done
  printf '\n'
done
echo "wrote $csv (logs in $out/log)" >&2
