#!/usr/bin/env bash
# Proves that an MPI library obeys a tuning file written by choreo's exporter
# (choreo/rules_export.hpp, docs/selection.md): it writes a file that switches COLL from
# algorithm BELOW to algorithm FROM at THRESHOLD bytes (choreo's bytes), runs rules_probe with
# THRESHOLD-1 and THRESHOLD bytes, rank 0 under gdb with a breakpoint on every algorithm
# function the library has for COLL, and requires that each call entered exactly the function
# of the algorithm the file chose. The two sizes straddle the threshold, so this also checks
# the size conversion (Open MPI: bytes x ranks for allgather and alltoall; MPICH: allgather's
# total_msg_size) to the byte.
#
#   rules_proof.sh --library ompi|mpich --collective COLL --threshold T --below ALG --from ALG
#                  --ranks N --writer rules_write --probe rules_probe [--locator L]
#                  --work DIR --mpiexec MPIEXEC --numproc-flag FLAG [-- MPIEXEC_PREFLAGS...]
#
# Open MPI 4.1.4 exports its algorithms (ompi_coll_base_*) from libmpi; MPICH 4.0.2's
# libmpich is stripped, so elf_function_locator finds its MPIR_* functions (see there).
# Prints "rules proof: OK" at the end, or why not and exits 1.
set -euo pipefail

die() { echo "rules_proof: $*" >&2; exit 1; }

ranks=4 locator= preflags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --library) library=$2; shift 2 ;;
    --collective) collective=$2; shift 2 ;;
    --threshold) threshold=$2; shift 2 ;;
    --below) below=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --writer) writer=$2; shift 2 ;;
    --probe) probe=$2; shift 2 ;;
    --locator) locator=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --mpiexec) mpiexec=$2; shift 2 ;;
    --numproc-flag) np_flag=$2; shift 2 ;;
    --) shift; preflags=("$@"); break ;;
    *) die "unknown argument $1" ;;
  esac
done
for v in library collective threshold below from writer probe work mpiexec np_flag; do
  [ -n "${!v:-}" ] || die "--${v//_/-} is required"
done
command -v gdb >/dev/null || die "gdb not found: run scripts/install-deps"

# The functions that implement each algorithm, per library. Written here from the libraries'
# symbol and function names, independently of the exporter's tables.
declare -A fn
if [ "$library" = ompi ]; then
  p=ompi_coll_base_
  fn[allgather:ring]=${p}allgather_intra_ring
  fn[allgather:bruck]=${p}allgather_intra_bruck
  fn[allgather:recdbl]=${p}allgather_intra_recursivedoubling
  fn[allgather:neighbor]=${p}allgather_intra_neighborexchange
  fn[allgather:-basic]=${p}allgather_intra_basic_linear
  fn[allgather:-two]=${p}allgather_intra_two_procs
  fn[allreduce:recdbl]=${p}allreduce_intra_recursivedoubling
  fn[allreduce:ring]=${p}allreduce_intra_ring
  fn[allreduce:rabenseifner]=${p}allreduce_intra_redscat_allgather
  fn[allreduce:-basic]=${p}allreduce_intra_basic_linear
  fn[allreduce:-nonoverlapping]=${p}allreduce_intra_nonoverlapping
  fn[allreduce:-segmented]=${p}allreduce_intra_ring_segmented
  fn[alltoall:pairwise]=${p}alltoall_intra_pairwise
  fn[alltoall:bruck]=${p}alltoall_intra_bruck
  fn[alltoall:-basic]=${p}alltoall_intra_basic_linear
  fn[alltoall:-sync]=${p}alltoall_intra_linear_sync
  fn[alltoall:-two]=${p}alltoall_intra_two_procs
  fn[bcast:binomial]=${p}bcast_intra_binomial
  fn[bcast:scatter_allgather]=${p}bcast_intra_scatter_allgather
  fn[bcast:-ring]=${p}bcast_intra_scatter_allgather_ring
  fn[bcast:-basic]=${p}bcast_intra_basic_linear
  fn[bcast:-chain]=${p}bcast_intra_chain
  fn[bcast:-pipeline]=${p}bcast_intra_pipeline
  fn[bcast:-split]=${p}bcast_intra_split_bintree
  fn[bcast:-bintree]=${p}bcast_intra_bintree
  fn[bcast:-knomial]=${p}bcast_intra_knomial
  format=ompi-rules suffix=rules
elif [ "$library" = mpich ]; then
  fn[allgather:ring]=MPIR_Allgather_intra_ring
  fn[allgather:bruck]=MPIR_Allgather_intra_brucks
  fn[allgather:recdbl]=MPIR_Allgather_intra_recursive_doubling
  fn[allreduce:recdbl]=MPIR_Allreduce_intra_recursive_doubling
  fn[allreduce:rabenseifner]=MPIR_Allreduce_intra_reduce_scatter_allgather
  fn[allreduce:-smp]=MPIR_Allreduce_intra_smp
  fn[alltoall:pairwise]=MPIR_Alltoall_intra_pairwise
  fn[alltoall:bruck]=MPIR_Alltoall_intra_brucks
  fn[alltoall:-scattered]=MPIR_Alltoall_intra_scattered
  fn[alltoall:-inplace]=MPIR_Alltoall_intra_pairwise_sendrecv_replace
  fn[bcast:binomial]=MPIR_Bcast_intra_binomial
  fn[bcast:scatter_allgather]=MPIR_Bcast_intra_scatter_recursive_doubling_allgather
  fn[bcast:-ring]=MPIR_Bcast_intra_scatter_ring_allgather
  fn[bcast:-smp]=MPIR_Bcast_intra_smp
  format=mpich-json suffix=json
else
  die "--library must be ompi or mpich"
fi
candidates=()
for key in "${!fn[@]}"; do
  [ "${key%%:*}" = "$collective" ] && candidates+=("${fn[$key]}")
done
[ ${#candidates[@]} -gt 0 ] || die "no $library functions listed for $collective"
expect_below=${fn[$collective:$below]:-} expect_from=${fn[$collective:$from]:-}
[ -n "$expect_below" ] || die "$library has no $collective algorithm $below"
[ -n "$expect_from" ] || die "$library has no $collective algorithm $from"

mkdir -p "$work"
stem="$work/rules_${library}_${collective}_${below}_${from}"
file="$stem.$suffix"
"$writer" --format "$format" --decision "$collective:$ranks:0=$below,$threshold=$from" -o "$file"

# gdb commands: one dprintf per candidate function.
commands="$stem.gdb"
{
  echo "set pagination off"
  echo "set confirm off"
  if [ "$library" = ompi ]; then
    echo "set breakpoint pending on"
    for f in "${candidates[@]}"; do
      echo "dprintf $f,\"choreo-trace: entered $f\\n\""
    done
    echo "run"
  else
    [ -n "$locator" ] || die "--locator is required for mpich"
    lib=$(ldd "$probe" | awk '/libmpich\.so/ {print $3; exit}')
    [ -n "$lib" ] || die "$probe does not load libmpich"
    args=(--symbol PMPI_Init)
    for f in "${candidates[@]}"; do args+=(--function "$f"); done
    located=$("$locator" "$lib" "${args[@]}") || die "cannot locate the MPICH functions in $lib"
    echo "$located" | sed 's/^/# /'
    anchor=$(echo "$located" | awk '$1 == "symbol" {print $3}')
    echo "break main"
    echo "run"
    echo "set \$choreo_base = (char *) &PMPI_Init - $anchor"
    echo "$located" | awk -v lib="$(basename "$lib")" '$1 == "function" {
      printf "dprintf *($choreo_base + %s),\"choreo-trace: entered %s (%s+%s)\\n\"\n",
             $3, $2, lib, $3 }'
    echo "continue"
  fi
} > "$commands"

sizes="$((threshold - 1)),$threshold"
probe_args=(--library "$library" --collective "$collective" --bytes "$sizes")
if [ "$library" = ompi ]; then
  launch=("$mpiexec" "${preflags[@]}" --mca coll_tuned_use_dynamic_rules 1
          --mca coll_tuned_dynamic_rules_filename "$file")
  echo "rules_proof: $mpiexec --mca coll_tuned_use_dynamic_rules 1" \
       "--mca coll_tuned_dynamic_rules_filename $file"
else
  export MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$file" MPIR_CVAR_DEVICE_COLLECTIVES=none
  launch=("$mpiexec" "${preflags[@]}")
  echo "rules_proof: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$file" \
       "MPIR_CVAR_DEVICE_COLLECTIVES=none $mpiexec"
fi
log="$stem.log"
set +e
"${launch[@]}" "$np_flag" 1 gdb -q -batch -x "$commands" --args "$probe" "${probe_args[@]}" : \
  "$np_flag" $((ranks - 1)) "$probe" "${probe_args[@]}" > "$log" 2>&1
status=$?
set -e
grep -E '^(rules_probe|choreo-trace):' "$log" || true
[ $status -eq 0 ] || { cat "$log" >&2; die "the run failed (exit $status); log in $log"; }

# Which candidate functions rank 0 entered between "call" and "done" of each size.
check() {  # bytes expected algorithm
  local entered
  entered=$(awk -v c="rules_probe: call $collective $1 B" \
                -v d="rules_probe: done $collective $1 B" '
    index($0, c) == 1 {on = 1; next}
    index($0, d) == 1 {on = 0; seen = 1}
    on && $1 == "choreo-trace:" {print $3}
    END {if (!seen) print "(no done line)"}' "$log" | sort -u | tr '\n' ' ')
  if [ "$entered" != "$2 " ]; then
    die "$collective $1 B on $ranks ranks: the file chose $3 ($2)" \
        "but rank 0 entered: ${entered:-nothing}"
  fi
  echo "rules_proof: $collective $1 B on $ranks ranks -> entered $2: the file's choice ($3)"
}
check $((threshold - 1)) "$expect_below" "$below"
check "$threshold" "$expect_from" "$from"
echo "rules proof: OK ($library, $collective, $below below $threshold B, $from from it)"
