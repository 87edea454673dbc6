#!/usr/bin/env bash
# Runs one choreo schedule under SimGrid SMPI on a generated platform and checks that the
# MPI executor verified every received byte. CTest calls it (label "smpi"); it also runs by
# hand, e.g. from the build directory:
#
#   tests/smpi/run_smpi.sh tools/choreo smpi/tools/choreo-mpi /usr/bin/smpirun \
#       /tmp/smpi-switch switch:64:1Gbps:50us alltoall 64 1024
#
# usage: run_smpi.sh CHOREO CHOREO_MPI SMPIRUN WORKDIR PLATFORM PATTERN RANKS BYTES [CALL]
#   CHOREO      the choreo command line (makes the platform, pattern and schedule)
#   CHOREO_MPI  choreo-mpi built with smpicxx (a shared object that smpirun loads)
#   SMPIRUN     SimGrid's smpirun
#   WORKDIR     where the generated files and the run's output go (created)
#   PLATFORM    switch:NODES:BW:LAT, switch-ns3:NODES:BW:LAT (the switch in SimGrid's ns-3
#               packet-level TCP model) or torus:AxBxC:BW:LAT, e.g. torus:2x3x4:5GBps:1us
#   PATTERN     alltoall, gather, scatter or triangle (choreo pattern KIND)
#   RANKS       MPI ranks, at most the platform's nodes (one rank per node)
#   BYTES       bytes per message
#   CALL        optional: run this MPI collective on the pattern (choreo-mpi collective
#               --call CALL) instead of choreo's direct schedule
set -euo pipefail

if [[ $# -ne 8 && $# -ne 9 ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2
  exit 2
fi
choreo=$(realpath "$1") choreo_mpi=$(realpath "$2") smpirun=$3 workdir=$4
platform=$5 pattern=$6 ranks=$7 bytes=$8 call=${9:-}

IFS=: read -r topology shape bandwidth latency <<<"$platform"
model=()
case $topology in
  switch) shape_option=(--nodes "$shape") ;;
  switch-ns3)
    topology=switch shape_option=(--nodes "$shape" --ns3) model=(--cfg=network/model:ns-3) ;;
  torus) shape_option=(--dims "$shape") ;;
  *) echo "run_smpi.sh: platform '$platform' is neither switch:... nor torus:..." >&2; exit 2 ;;
esac

mkdir -p "$workdir"
cd "$workdir"
rm -f platform.xml platform.hosts pattern.json schedule.json smpirun.log

"$choreo" platform "$topology" "${shape_option[@]}" --bw "$bandwidth" --lat "$latency" \
  -o platform.xml
"$choreo" pattern "$pattern" --ranks "$ranks" --bytes "$bytes" -o pattern.json
"$choreo" schedule --algo direct pattern.json -o schedule.json
what=(run schedule.json)
[[ -n $call ]] && what=(collective pattern.json --call "$call")

# simulate-computation:no  the executor's own CPU time (filling and checking buffers) is not
#                          part of the schedule, so it must not advance the simulated clock.
# smpi/test:0              SMPI charges 100 us of simulated time to every MPI_Test/Waitsome
#                          by default; the executor waits with Waitsome, and that charge
#                          would inflate the 64-rank alltoall tenfold (22 ms instead of 2 ms).
# The log thresholds drop SimGrid's start-up chatter; warnings and errors still show.
status=0
"$smpirun" -platform platform.xml -hostfile platform.hosts -np "$ranks" \
  --cfg=smpi/simulate-computation:no --cfg=smpi/test:0 \
  --log=xbt_cfg.thres:warning --log=smpi_config.thres:warning --log=smpi_coll.thres:warning \
  "${model[@]}" "$choreo_mpi" "${what[@]}" --reps 3 --warmup 1 2>&1 | tee smpirun.log || status=$?

if [[ $status -ne 0 ]]; then
  echo "run_smpi.sh: smpirun failed with status $status (output in $workdir/smpirun.log)" >&2
  exit 1
fi
if ! grep -q "verified" smpirun.log; then
  echo "run_smpi.sh: choreo-mpi did not report verified bytes (output in $workdir/smpirun.log)" >&2
  exit 1
fi
echo "run_smpi.sh: OK: ${call:-direct schedule} $pattern on $ranks ranks, $topology $shape, bytes verified under SMPI"
