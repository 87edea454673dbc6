#!/usr/bin/env bash
# Proves that an MPI library obeys a tuning file written by choreo's exporter
# (choreo/select/rules_export.hpp, docs/selection.md): it writes a file that switches COLL from
# algorithm BELOW to algorithm FROM at THRESHOLD bytes (choreo's bytes), runs rules_probe with
# THRESHOLD-1 and THRESHOLD bytes, rank 0 under gdb with a breakpoint on every algorithm
# function the library has for COLL, and requires that each call entered exactly the function
# of the algorithm the file chose. The two sizes straddle the threshold, so this also checks
# the size conversion (Open MPI: bytes x ranks for allgather and alltoall; MPICH: allgather's
# total_msg_size) to the byte.
#
#   rules_proof.sh --library ompi|mpich --collective COLL --threshold T --below ALG --from ALG
#                  --ranks N --writer rules_write --probe rules_probe [--locator L]
#                  [--unchanged COLL2:P:BYTES[,BYTES...]]...
#                  --work DIR --mpiexec MPIEXEC --numproc-flag FLAG [-- MPIEXEC_PREFLAGS...]
#
# --unchanged (MPICH): calls the file does not decide, COLL2 on a communicator of the first P
# ranks at each of BYTES, run twice, with the file and with no file at all (MPICH's stock
# selection; MPIR_CVAR_DEVICE_COLLECTIVES=none in both runs). Rank 0 must enter the same
# algorithm functions in both: the file keeps MPICH's own decisions outside choreo's.
#
# Open MPI 4.1.4 exports its algorithms (ompi_coll_base_*) from libmpi; MPICH 4.0.2's
# libmpich is stripped, so elf_function_locator finds its MPIR_* functions (see there).
# Prints "rules proof: OK" at the end, or why not and exits 1.
set -euo pipefail

die() { echo "rules_proof: $*" >&2; exit 1; }

ranks=4 locator= preflags=() unchanged=()
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
    --unchanged) unchanged+=("$2"); shift 2 ;;
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
# The functions listed for a collective, one per line.
functions_of() {
  local key
  for key in "${!fn[@]}"; do
    [ "${key%%:*}" = "$1" ] && echo "${fn[$key]}"
  done
  return 0
}
mapfile -t candidates < <(functions_of "$collective")
[ ${#candidates[@]} -gt 0 ] || die "no $library functions listed for $collective"
expect_below=${fn[$collective:$below]:-} expect_from=${fn[$collective:$from]:-}
[ -n "$expect_below" ] || die "$library has no $collective algorithm $below"
[ -n "$expect_from" ] || die "$library has no $collective algorithm $from"
if [ ${#unchanged[@]} -gt 0 ] && [ "$library" != mpich ]; then
  die "--unchanged compares with MPICH's stock selection: it is for --library mpich"
fi

mkdir -p "$work"
stem="$work/rules_${library}_${collective}_${below}_${from}"
[ ${#unchanged[@]} -eq 0 ] || stem+="_keeps_stock"
file="$stem.$suffix"
"$writer" --format "$format" --decision "$collective:$ranks:0=$below,$threshold=$from" -o "$file"

# gdb_commands OUT FUNCTION...: gdb commands with one dprintf per function.
gdb_commands() {
  local out=$1 f lib located anchor
  shift
  {
    echo "set pagination off"
    echo "set confirm off"
    if [ "$library" = ompi ]; then
      echo "set breakpoint pending on"
      for f in "$@"; do
        echo "dprintf $f,\"choreo-trace: entered $f\\n\""
      done
      echo "run"
    else
      [ -n "$locator" ] || die "--locator is required for mpich"
      lib=$(ldd "$probe" | awk '/libmpich\.so/ {print $3; exit}')
      [ -n "$lib" ] || die "$probe does not load libmpich"
      local args=(--symbol PMPI_Init)
      for f in "$@"; do args+=(--function "$f"); done
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
  } > "$out"
}

# run_probe LOG COMMANDS WITH_FILE(yes|no) PROBE_ARGS...: rank 0 under gdb, the others plain.
run_probe() {
  local log=$1 commands=$2 with_file=$3 status
  shift 3
  local launch=("$mpiexec" "${preflags[@]}")
  if [ "$library" = ompi ]; then
    launch+=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "$file")
    echo "rules_proof: $mpiexec --mca coll_tuned_use_dynamic_rules 1" \
         "--mca coll_tuned_dynamic_rules_filename $file"
  elif [ "$with_file" = yes ]; then
    launch=(env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$file" MPIR_CVAR_DEVICE_COLLECTIVES=none
            "${launch[@]}")
    echo "rules_proof: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$file" \
         "MPIR_CVAR_DEVICE_COLLECTIVES=none $mpiexec"
  else
    launch=(env -u MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE MPIR_CVAR_DEVICE_COLLECTIVES=none
            "${launch[@]}")
    echo "rules_proof: no tuning file (MPICH's stock selection)," \
         "MPIR_CVAR_DEVICE_COLLECTIVES=none $mpiexec"
  fi
  set +e
  "${launch[@]}" "$np_flag" 1 gdb -q -batch -x "$commands" --args "$probe" "$@" : \
    "$np_flag" $((ranks - 1)) "$probe" "$@" > "$log" 2>&1
  status=$?
  set -e
  grep -E '^(rules_probe|choreo-trace):' "$log" || true
  [ $status -eq 0 ] || { cat "$log" >&2; die "the run failed (exit $status); log in $log"; }
}

# entered LOG COLL BYTES: the listed functions rank 0 entered between "call" and "done" of that
# call, sorted, each followed by a space.
entered() {
  awk -v c="rules_probe: call $2 $3 B" -v d="rules_probe: done $2 $3 B" '
    index($0, c) == 1 {on = 1; next}
    index($0, d) == 1 {on = 0; seen = 1}
    on && $1 == "choreo-trace:" {print $3}
    END {if (!seen) print "(no done line)"}' "$1" | sort -u | tr '\n' ' '
}

commands="$stem.gdb"
gdb_commands "$commands" "${candidates[@]}"
log="$stem.log"
run_probe "$log" "$commands" yes --library "$library" --collective "$collective" \
  --bytes "$((threshold - 1)),$threshold"

check() {  # bytes expected algorithm
  local got
  got=$(entered "$log" "$collective" "$1")
  if [ "$got" != "$2 " ]; then
    die "$collective $1 B on $ranks ranks: the file chose $3 ($2)" \
        "but rank 0 entered: ${got:-nothing}"
  fi
  echo "rules_proof: $collective $1 B on $ranks ranks -> entered $2: the file's choice ($3)"
}
check $((threshold - 1)) "$expect_below" "$below"
check "$threshold" "$expect_from" "$from"

# Calls the file does not decide: what rank 0 enters with the file and with none must agree.
for spec in "${unchanged[@]}"; do
  IFS=: read -r ucoll usize ubytes <<< "$spec"
  if [ -z "$ucoll" ] || [ -z "$usize" ] || [ -z "$ubytes" ]; then
    die "--unchanged '$spec' is not COLL:P:BYTES[,BYTES...]"
  fi
  [ "$usize" -le "$ranks" ] || die "--unchanged '$spec': $usize ranks, but the runs have $ranks"
  if [ "$ucoll" = "$collective" ] && [ "$usize" = "$ranks" ]; then
    die "--unchanged '$spec' is what the file decides ($collective on $ranks ranks)"
  fi
  mapfile -t ufunctions < <(functions_of "$ucoll")
  [ ${#ufunctions[@]} -gt 0 ] || die "no $library functions listed for $ucoll"
  ustem="$stem.unchanged_${ucoll}_${usize}"
  gdb_commands "$ustem.gdb" "${ufunctions[@]}"
  uargs=(--library "$library" --collective "$ucoll" --bytes "$ubytes" --comm-size "$usize")
  run_probe "$ustem.file.log" "$ustem.gdb" yes "${uargs[@]}"
  run_probe "$ustem.stock.log" "$ustem.gdb" no "${uargs[@]}"
  IFS=, read -r -a usizes <<< "$ubytes"
  for b in "${usizes[@]}"; do
    with=$(entered "$ustem.file.log" "$ucoll" "$b")
    without=$(entered "$ustem.stock.log" "$ucoll" "$b")
    case "$without" in
      ""|"(no done line) ") die "$ucoll $b B on $usize ranks: no listed function entered" \
                                "without the file (${without:-nothing}); logs in $ustem.*.log" ;;
    esac
    if [ "$with" != "$without" ]; then
      die "$ucoll $b B on $usize ranks: with the file rank 0 entered ${with% }," \
          "without it ${without% }: the file changed MPICH's stock choice"
    fi
    echo "rules_proof: $ucoll $b B on $usize ranks (not decided by the file) -> entered" \
         "${with% }, as with no file (MPICH's stock choice)"
  done
done
kept=""
[ ${#unchanged[@]} -eq 0 ] || kept="; stock kept for ${unchanged[*]}"
echo "rules proof: OK ($library, $collective, $below below $threshold B, $from from it$kept)"
