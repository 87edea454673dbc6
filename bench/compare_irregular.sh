#!/usr/bin/env bash
# Paper 000's comparison (its Table 3 and Fig. 6): for every pattern, choreo's schedules
# (ring, delay insertion, optimal plain and paced, phases, direct) side by side with the MPI collectives
# that fit the pattern, in four settings:
#   real  Open MPI on this machine, 4 ranks (overheads only: shared memory, 2 cores)
#   flow  SimGrid SMPI, 64 nodes on one 1 GbE switch, flow model (bandwidth sharing); its
#         TCP ACK cross-traffic puts 5% of a flow's rate on the reverse link
#   flow-noack  the same without the ACK cross-traffic (ideal full-duplex links)
#   ns3   the same cluster in SimGrid's ns-3 packet-level TCP model
#   ns3-loss  the same with switch ports that drop (bench/lib/switch64.sh: 256 KiB, 200 ms RTO)
#   sim   choreo sim, the same cluster as a LogGOPS switch; links held whole-message
#         (sim-serial: contention costs what it costs on a store-and-forward switch port) or
#         shared fairly (sim-fair: like the flow model), or as TCP segments into switch ports
#         whose buffers drop (sim-tcp: 256 KiB per port, Linux's 200 ms minimum timeout)
# Every MPI run verifies every byte. Writes DIR/results.csv, DIR/tables.md and
# DIR/compare_sf.png (Fig. 6); progress and failures go to stderr and DIR/log/.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/compare_irregular.sh [-o DIR] [--settings "real flow ns3 sim"] [--quick]

  -o DIR        output directory (default out/compare)
  --settings S  which settings to run, any of: real flow flow-noack ns3 ns3-loss
                sim-serial sim-fair sim-tcp (default all but ns3-loss)
  --quick       ns3 only on gather, scatter and sf-1 (the full ns-3 set takes ~90 min)
  --patterns P  only these of the 64-rank patterns, e.g. "gather sf-1 sf-5"
  -h, --help    this help

Needs `scripts/build default` (MPICH + SMPI executors) and, for "real",
`scripts/build openmpi`. "real" and "sim-*" take a few minutes, "flow" ~10 min, "ns3" over an
hour (alltoall and triangle alone ~4 min per run: ns-3 simulates every packet).
EOF
}

cd "$(dirname "$0")/.."
# shellcheck source=bench/lib/switch64.sh
. bench/lib/switch64.sh
out=out/compare
settings="real flow flow-noack ns3 sim-serial sim-fair sim-tcp"
quick=0
only_patterns=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --settings) settings=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --patterns) only_patterns=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare_irregular.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

bin=build/default/tools
choreo=$bin/choreo
smpi_mpi=build/default/smpi/tools/choreo-mpi
ompi_mpi=build/openmpi/tools/choreo-mpi
for tool in "$choreo" "$smpi_mpi"; do
  [ -x "$tool" ] || { echo "missing $tool: run scripts/build default" >&2; exit 1; }
done
case " $settings " in *" real "*)
  [ -x "$ompi_mpi" ] || { echo "missing $ompi_mpi: run scripts/build openmpi" >&2; exit 1; } ;;
esac

k=$paper_bytes
mkdir -p "$out/log" "$out/patterns" "$out/schedules" "$out/runs"
csv=$out/results.csv
echo "setting,pattern,method,median_s,lower_bound_s" > "$csv"
say() { printf '== %s\n' "$*" >&2; }

# pattern NAME RANKS -> writes $out/patterns/NAME-RANKS.json (bench/lib/switch64.sh).
pattern() { paper_pattern "$choreo" "$1" "$2" "$out/patterns"; }

# The MPI collectives that fit each pattern (paper 000's pairing).
collectives() {
  case $1 in
    scatter) echo "bcast scatter alltoallv" ;;
    gather) echo "gather alltoallv" ;;
    alltoall) echo "allgather alltoall alltoallv" ;;
    *) echo "alltoallv" ;;
  esac
}

lower_bound() { port_lower_bound "$1"; }

mpi_name() {
  case $1 in
    bcast) echo MPI_Bcast ;; scatter) echo MPI_Scatter ;; gather) echo MPI_Gather ;;
    allgather) echo MPI_Allgather ;; alltoall) echo MPI_Alltoall ;;
    alltoallv) echo MPI_Alltoallv ;; neighbor_alltoallv) echo MPI_Neighbor_alltoallv ;;
  esac
}

record() {  # SETTING PATTERN METHOD RUN_JSON LOWER_BOUND
  local median=NA
  [ -s "$4" ] && median=$(jq -r .seconds.median "$4")
  echo "$1,$2,$3,$median,$5" >> "$csv"
  printf '   %-5s %-9s %-28s %s\n' "$1" "$2" "$3" "$median" >&2
}

# choreo's methods: paper 000's ring, delay insertion (Fig. 4 runtime: only empty slots
# sleep) and CC-MPI phases; the fewest-slots colouring, plain and time-slotted (every slot
# lasts δ); and direct (everything at once in ring order, like a linear MPI_Alltoallv).
methods="ring delay optimal optimal-paced phases direct"
schedules() {  # PATTERN_FILE DELTA_NS PREFIX -> PREFIX.METHOD.json
  for method in $methods; do
    local algo=${method%-paced} pace=""
    [ "$method" != "$algo" ] && pace=--paced
    $choreo schedule --algo "$algo" $pace --delta "$2" "$1" -o "$3.$method.json" > /dev/null
  done
}

# run_mpi SETTING PATTERN LAUNCHER... : every schedule and fitting collective under LAUNCHER.
# COLL_VARIANTS lists "label:extra-args" pairs for the collectives (e.g. the SMPI selectors);
# SCHEDULE_CFG holds extra launcher arguments for choreo's own runs.
run_mpi() {
  local setting=$1 name=$2 pfile=$3 delta=$4 lb=$5 tool=$6
  shift 6
  local prefix=$out/schedules/$setting-$name
  schedules "$pfile" "$delta" "$prefix"
  for algo in $methods; do
    local result=$out/runs/$setting-$name-$algo.json
    # shellcheck disable=SC2086
    "$@" $schedule_cfg "$tool" run "$prefix.$algo.json" $reps -o "$result" \
      > /dev/null 2> "$out/log/$setting-$name-$algo.log" || true
    record "$setting" "$name" "$algo" "$result" "$lb"
  done
  for call in $(collectives "$name") $extra_calls; do
    for variant in $coll_variants; do
      local label=${variant%%:*} cfg=${variant#*:} result=$out/runs/$setting-$name-$call-${variant%%:*}.json
      # shellcheck disable=SC2086
      "$@" ${cfg//,/ } "$tool" collective "$pfile" --call "$call" $reps -o "$result" \
        > /dev/null 2> "$out/log/$setting-$name-$call-$label.log" || true
      record "$setting" "$name" "$(mpi_name "$call")${label:+ ($label)}" "$result" "$lb"
    done
  done
}

# The delay the paper calibrates on a gather (Fig. 5), here under LAUNCHER.
calibrate() {  # TOOL TO_NS LAUNCHER...
  local tool=$1 to=$2
  shift 2
  "$@" "$tool" calibrate-delay --from 0 --to "$to" --steps 11 --reps 1 --warmup 1 --json \
    2> /dev/null | jq -r .best_delta_ns
}

patterns64=${only_patterns:-"scatter gather alltoall triangle sf-1 sf-2 sf-3 sf-4 sf-5"}

for setting in $settings; do
  case $setting in
    real)
      say "real MPI: Open MPI, 4 ranks on this machine (--oversubscribe)"
      launcher=(mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4)
      reps="--warmup 5 --reps 51"
      schedule_cfg=""
      coll_variants=":"
      extra_calls="neighbor_alltoallv"
      delta=$(calibrate "$ompi_mpi" 200000 "${launcher[@]}")
      say "calibrated delay: $delta ns"
      for name in scatter gather alltoall triangle sf; do
        pfile=$(pattern $name 4)
        run_mpi real $name "$pfile" "$delta" "$(lower_bound "$pfile")" "$ompi_mpi" "${launcher[@]}"
      done
      ;;
    flow|flow-noack|ns3|ns3-loss)
      switch_platforms "$choreo" "$out"
      smpi_launcher "$setting" "$out"
      launcher=("${smpi_launcher[@]}" -np 64)
      if [ "${setting#ns3}" = "$setting" ]; then
        say "SMPI flow model, 64 nodes, 1 GbE switch (SMPI's size factors off: 1 GbE is 1 GbE)"
        if [ "$setting" = flow-noack ]; then
          say "... without TCP ACK cross-traffic (--cfg=network/crosstraffic:0)"
        fi
        reps="--warmup 1 --reps 3"
        names=$patterns64
      else
        say "SMPI ns-3 TCP model (NewReno), 64 nodes, 1 GbE switch$([ $setting = ns3-loss ] &&
          echo ", ports that drop: NS_ATTRIBUTE_DEFAULT=$ns3_loss")"
        reps="--warmup 0 --reps 1"
        names=$patterns64
        [ $quick = 1 ] && names="scatter gather sf-1"
      fi
      coll_variants="ompi:--cfg=smpi/coll-selector:ompi mpich:--cfg=smpi/coll-selector:mpich"
      # The timing barrier of choreo's runs: SMPI's default barrier releases ranks up to one
      # latency (108 us here) apart, which misaligns time slots; MPICH's releases them together.
      schedule_cfg=--cfg=smpi/coll-selector:mpich
      extra_calls=""
      # One slot: k / 1 Gbit/s = 516 us plus a little for o and g. Paper 000's Fig. 5 sweep
      # on a gather is flat below one slot in the flow model (sharing costs nothing).
      delta=520000
      say "delay per empty slot: $delta ns (one slot)"
      for name in $names; do
        pfile=$(pattern $name 64)
        run_mpi $setting $name "$pfile" "$delta" "$(lower_bound "$pfile")" "$smpi_mpi" \
          "${launcher[@]}"
      done
      ;;
    sim-serial|sim-fair|sim-tcp)
      sharing=${setting#sim-}
      [ "$sharing" = serial ] && sharing=serialize
      say "choreo sim: LogGOPS switch ($sharing), L = 100 us (two 50 us links), G = 8 ns/B"
      model=(--network switch --sharing "$sharing" --dma-receive --L 100000 --o 2000 --g 2000
        --G 8 --S 65536)
      # A slot is what one message holds a port: g + (k-1) G. (Paper 000's Fig. 5 sweep on a
      # gather picks 0 here: a gather's incast loses no throughput in either sharing model.)
      best=$((2000 + (k - 1) * 8))
      say "delay per empty slot: $best ns (one slot)"
      for name in $patterns64; do
        pfile=$(pattern $name 64)
        lb=$(lower_bound "$pfile")
        schedules "$pfile" "$best" "$out/schedules/$setting-$name"
        for algo in $methods; do
          result=$out/runs/$setting-$name-$algo.json
          $choreo sim "$out/schedules/$setting-$name.$algo.json" "${model[@]}" -o "$result" \
            > /dev/null 2> "$out/log/$setting-$name-$algo.log" || true
          record $setting $name $algo "$result" "$lb"
        done
      done
      ;;
    *) echo "unknown setting '$setting' (real flow flow-noack ns3 ns3-loss sim-serial sim-fair sim-tcp)" >&2
       exit 2 ;;
  esac
done

bench/compare_tables.sh "$csv" "$out"
