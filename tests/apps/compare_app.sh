#!/usr/bin/env bash
# Runs an application without and with a preloaded PMPI library and compares the results.
#
# Usage: tests/apps/compare_app.sh APP LIB [--ranks N] [--exact] [--keep] [--mca KEY=VALUE]...
#                                  [--modes MODE,...]
#   APP     one of run_app.sh's applications, or "ci" (lammps fftw ptscotch hpcc) or "all"
#   LIB     the library to preload (e.g. build/apps/count_calls.so, libchoreo_pmpi.so), or "-"
#           for none (then --mca shows what Open MPI's own algorithm choices change)
#   --ranks N     ranks for both runs (default: the application's)
#   --exact       require bit-identical results even where the policy allows a tolerance
#   --keep        keep the run directories (kept anyway when the comparison fails)
#   --mca K=V     Open MPI MCA parameter for the second run only
#   --modes M,... one run with the library per CHOREO_MODE (auto, choreo, mpi), each compared
#                 with the one run without it (CHOREO_REPORT, if set, gets _M before .json)
#
# Verdicts, one line per application:
#   IDENTICAL           result.txt and exact.txt are byte for byte the same
#   WITHIN TOLERANCE    (only for applications whose policy is tol:..., see run_app.sh list)
#                       the numbers differ in their last digits, as floating-point sums
#                       reduced in another order do; exact.txt differences are shown
#   DIFFERENT           anything else: exit 1
# Data movement (MPI_Alltoallv, MPI_Bcast, MPI_Allgather) must never change a bit: fftw,
# ptscotch and hpcc depend only on it and on reductions whose order does not matter (integers,
# min/max), so they require IDENTICAL. So do lammps and cp2k on 2 ranks, where any order of a
# two-operand sum gives the same bits (a+b == b+a): use --ranks 2 --exact there.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "compare_app: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: compare_app.sh APP LIB [--ranks N] [--exact] [--keep] [--mca K=V]"
app=$1 lib=$2
shift 2
exact=0 keep=0 ranks_opt=() mca_opt=() modes=("")
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) [ $# -ge 2 ] || die "--ranks needs a number"; ranks_opt=(--ranks "$2"); shift 2 ;;
    --exact) exact=1; shift ;;
    --keep) keep=1; shift ;;
    --mca) [ $# -ge 2 ] || die "--mca needs KEY=VALUE"; mca_opt+=(--mca "$2"); shift 2 ;;
    --modes) [ $# -ge 2 ] || die "--modes needs MODE[,MODE...]"; IFS=, read -r -a modes <<<"$2"
      [ ${#modes[@]} -gt 0 ] || die "--modes needs MODE[,MODE...]"; shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
pre_opt=()
if [ "$lib" != - ]; then
  [ -f "$lib" ] || die "library '$lib' does not exist (build the counting shim with tests/apps/build.sh)"
  pre_opt=(--preload "$(readlink -f "$lib")")
fi

case $app in
  ci) list="lammps fftw ptscotch hpcc" ;;
  all) list="lammps fftw hpcc ptscotch dolfinx mpb cp2k" ;;
  *) list=$app ;;
esac

root=$(mktemp -d "${TMPDIR:-/tmp}/compare_app.XXXXXX") || die "cannot create a temporary directory"
failed=0

# compare_one APP: the run without the library, then one run with it per mode (CHOREO_MODE, or
# the environment's own when --modes is not given), each compared with the first.
compare_one() {
  local a=$1 base="$root/$1.base" mode failed_one=0
  "$here/run_app.sh" "$a" --out "$base" ${ranks_opt[@]+"${ranks_opt[@]}"} >/dev/null ||
    { echo "compare_app: $a: the run without the library failed"; keep=1; return 1; }
  for mode in "${modes[@]}"; do
    compare_mode "$a" "$base" "$mode" || failed_one=1
  done
  return $failed_one
}

compare_mode() {
  local a=$1 base=$2 mode=$3 with="$root/$1.lib${3:+.$3}" policy verdict note="" rel abs tb tw r
  local mode_env=() label=$a
  if [ -n "$mode" ]; then
    mode_env=(CHOREO_MODE="$mode")
    [ -n "${CHOREO_REPORT:-}" ] && mode_env+=(CHOREO_REPORT="${CHOREO_REPORT%.json}_$mode.json")
    label="$a, CHOREO_MODE=$mode"
  fi
  env ${mode_env[@]+"${mode_env[@]}"} "$here/run_app.sh" "$a" --out "$with" \
    ${ranks_opt[@]+"${ranks_opt[@]}"} ${pre_opt[@]+"${pre_opt[@]}"} ${mca_opt[@]+"${mca_opt[@]}"} \
    >/dev/null || { echo "compare_app: $label: the run with ${lib} failed"; keep=1; return 1; }
  policy=$(awk '$1 == "policy" { print $2 }' "$base/info.txt")
  r=$(awk '$1 == "ranks" { print $2 }' "$base/info.txt")
  tb=$(awk '$1 == "wall_s" { print $2 }' "$base/info.txt")
  tw=$(awk '$1 == "wall_s" { print $2 }' "$with/info.txt")
  if cmp -s "$base/result.txt" "$with/result.txt" && cmp -s "$base/exact.txt" "$with/exact.txt"; then
    verdict=IDENTICAL
  elif [ "$exact" -eq 0 ] && [[ $policy == tol:* ]]; then
    IFS=: read -r _ rel abs <<<"$policy"
    if note=$(awk -v rel="$rel" -v abs="$abs" -f "$here/numdiff.awk" "$base/result.txt" "$with/result.txt"); then
      verdict="WITHIN TOLERANCE"
      cmp -s "$base/exact.txt" "$with/exact.txt" ||
        note="$note; exact.txt differs: $(diff "$base/exact.txt" "$with/exact.txt" | grep -m2 '^[<>]' | tr '\n' ' ')"
      note="$note; why a tolerance: $(sed -n 's/^tolerance_reason //p' "$base/info.txt")"
    else
      verdict=DIFFERENT
    fi
  else
    verdict=DIFFERENT
    if ! cmp -s "$base/result.txt" "$with/result.txt"; then
      note=$(diff "$base/result.txt" "$with/result.txt" | grep -m4 '^[<>]' || true)
    else
      note=$(diff "$base/exact.txt" "$with/exact.txt" | grep -m4 '^[<>]' || true)
    fi
    [ "$exact" -eq 1 ] && [[ $policy == tol:* ]] && note="--exact given; $note"
  fi
  echo "compare_app: $label ($r ranks, policy $policy): $verdict (without ${tb}s, with ${tw}s)"
  [ -n "$note" ] && echo "$note" | sed 's/^/  /'
  if [ -f "$with/counts.txt" ]; then
    # the counting shim's view of the run: the five calls choreo replaces
    grep -E '\] (MPI_(Alltoallv|Neighbor_alltoallv|Allreduce|Bcast|Allgather) |MPI_Alltoallv pattern per rank)' "$with/counts.txt" | sed 's/^\[count_calls\]/  counts:/'
  fi
  if [ "$verdict" = DIFFERENT ]; then
    echo "  runs kept in $base and $with"
    keep=1
    return 1
  fi
}

for a in $list; do
  compare_one "$a" || failed=1
done
if [ "$keep" -eq 1 ]; then
  echo "compare_app: run directories in $root"
else
  rm -rf "$root"
fi
exit $failed
