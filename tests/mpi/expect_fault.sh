#!/usr/bin/env bash
# Runs an MPI command with a fault injected (tests/mpi/fault_shim.c, preloaded into every rank)
# and checks that it ends as choreo promises: exit status 1, no crash, no hang, no MPI abort,
# and a line on stderr for every rank matching REGEX, where %r stands for the rank.
#   usage: expect_fault.sh REGEX SHIM FAULT MPIEXEC [MPIEXEC FLAGS...] -n RANKS PROGRAM [ARGS...]
set -uo pipefail
regex=$1 shim=$2 fault=$3; shift 3
# The ranks' count follows -n / -np in the launcher's flags.
ranks=0 args=("$@")
for ((i = 0; i < ${#args[@]} - 1; i++)); do
  if [[ ${args[i]} == -n || ${args[i]} == -np ]]; then ranks=${args[i + 1]}; fi
done
# The shim goes to the ranks, not to the launcher: env runs between them.
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ ${args[i]} == */choreo-mpi ]]; then
    args=("${args[@]:0:i}" env "LD_PRELOAD=$shim" "CHOREO_TEST_FAULT=$fault" "${args[@]:i}")
    break
  fi
done

err=$(mktemp)
trap 'rm -f "$err"' EXIT
timeout 50 "${args[@]}" 2>"$err"
status=$?
cat "$err" >&2
if [[ $status -eq 0 ]]; then echo "expect_fault: the run succeeded under fault '$fault'" >&2; exit 1; fi
if [[ $status -eq 124 ]]; then echo "expect_fault: the run hung (killed after 50 s)" >&2; exit 1; fi
if [[ $status -ne 1 ]]; then echo "expect_fault: expected exit status 1, got $status" >&2; exit 1; fi
if grep -Eiq "internal error|MPI_Abort|BAD TERMINATION|AddressSanitizer|runtime error" "$err"; then
  echo "expect_fault: an abort, a crash or an internal error instead of the fault's lines" >&2
  exit 1
fi
for ((r = 0; r < ranks; r++)); do
  if ! grep -Eq -- "${regex//%r/$r}" "$err"; then
    echo "expect_fault: no line for rank $r matches /${regex//%r/$r}/" >&2; exit 1
  fi
done
echo "expect_fault: OK ($ranks ranks, one line each)"
