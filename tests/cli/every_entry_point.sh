#!/usr/bin/env bash
# Issue 20's audit: every entry point of `choreo` (and, with --mpi, of `choreo-mpi` under
# mpiexec) answers bad input with one line on stderr and exit status 1: an unknown option,
# a missing file, a directory, an empty file, binary garbage, and a malformed value of each
# file or spec option. The list of entry points is checked against the tools' own --help,
# so a new subcommand without a case here fails the test.
#   usage: every_entry_point.sh CHOREO
#          every_entry_point.sh --mpi CHOREO_MPI MPIEXEC [MPIEXEC FLAGS...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
expect=$here/../expect_failure.sh
mpi=0
if [[ $1 == --mpi ]]; then mpi=1; shift; fi
tool=$1; shift
launch=("$@")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
missing=$tmp/no/such/file.json
folder=$tmp/folder && mkdir -p "$folder"
empty=$tmp/empty.json && : >"$empty"
garbage=$tmp/garbage.json && printf '\x00\xff\xfe{"format": \x01\x02\n\x7f]]' >"$garbage"
tracedir=$tmp/trace && mkdir -p "$tracedir" && cp "$garbage" "$tracedir/rank-0.ctr"
out=$tmp/out.json
pattern=$tmp/pattern.json
printf '{"format": "choreo.pattern/1", "ranks": 2, "messages": [{"src": 0, "dst": 1, "bytes": 8}]}' >"$pattern"

failures=0 cases=0
# check NAME ARGS...: the tool with ARGS fails with one line and exit status 1.
check() {
  local name=$1; shift
  cases=$((cases + 1))
  if ! bash "$expect" --one-line "." "${launch[@]}" "$tool" "$@" >"$tmp/log" 2>&1; then
    failures=$((failures + 1))
    echo "FAIL $name: $(basename "$tool") $*" >&2
    sed 's/^/    /' "$tmp/log" >&2
  fi
}
# files NAME PREFIX... -- SUFFIX...: the file argument between PREFIX and SUFFIX, five ways.
files() {
  local name=$1; shift
  local prefix=() suffix=()
  while [[ $1 != -- ]]; do prefix+=("$1"); shift; done
  shift
  suffix=("$@")
  check "$name/missing" "${prefix[@]}" "$missing" "${suffix[@]}"
  check "$name/folder" "${prefix[@]}" "$folder" "${suffix[@]}"
  check "$name/empty" "${prefix[@]}" "$empty" "${suffix[@]}"
  check "$name/garbage" "${prefix[@]}" "$garbage" "${suffix[@]}"
}

# The entry points --help lists, as "sub" or "sub subsub".
listed() {
  local sub subsub
  for sub in $("${launch[@]}" "$tool" --help | awk '/^Subcommands:/{on=1; next} on && NF {print $1}'); do
    local inner
    inner=$("${launch[@]}" "$tool" "$sub" --help | awk '/^Subcommands:/{on=1; next} on && NF {print $1}')
    if [[ -z $inner ]]; then echo "$sub"; else for subsub in $inner; do echo "$sub $subsub"; done; fi
  done
}

if [[ $mpi -eq 0 ]]; then
  covered=("validate" "convert" "pattern" "schedule" "platform switch" "platform torus" "report"
           "generate" "select" "sim" "compare" "import" "redist plan" "jitter sweep")
  check top/unknown-option --no-such-option
  check top/unknown-command no-such-command
  check validate/unknown-option validate --no-such-option x.json
  files validate validate --
  check convert/unknown-option convert --no-such-option
  files convert convert -- -o "$out"
  check convert/output-folder-missing convert "$here/../data/dissemination4.goal" -o "$missing"
  check pattern/unknown-kind pattern no-such-kind --ranks 4 -o "$out"
  check pattern/ranks pattern alltoall --ranks -3 -o "$out"
  check pattern/bytes pattern alltoall --ranks 4 --bytes 1zz -o "$out"
  check pattern/output-folder-missing pattern alltoall --ranks 4 -o "$missing"
  files schedule schedule --algo direct -- -o "$out"
  files schedule-profile schedule --algo auto "$pattern" --profile --
  check schedule/algo schedule --algo no-such "$pattern" -o "$out"
  check platform-switch/bw platform switch --nodes 4 --bw fast -o "$out"
  check platform-switch/nodes platform switch --nodes 0 --bw 1Gbps -o "$out"
  check platform-torus/dims platform torus --dims 2x0x2 --bw 1Gbps -o "$out"
  check platform-torus/output-folder-missing platform torus --dims 2x2 --bw 1Gbps -o "$missing"
  files report report --
  check generate/unknown generate no:such -o "$out"
  check generate/ranks generate bcast:binomial:ranks=0:bytes=8 -o "$out"
  check generate/key generate bcast:binomial:ranks=4:bytes=8:colour=red -o "$out"
  check select/collective select no-such
  files select-profile select bcast --ranks 4 --profile --
  check select/placement select bcast --ranks 4 --alpha 1us --bandwidth 1GBps --placement file:"$missing"
  check select/sizes select bcast --ranks 4 --alpha 1us --bandwidth 1GBps --sizes 8:1:2
  check select/alpha select bcast --ranks 4 --alpha fast --bandwidth 1GBps
  files sim sim --
  check sim/generate sim --generate bcast:no-such:ranks=4:bytes=8
  check sim/noise sim --generate bcast:binomial:ranks=4:bytes=8 --noise os:period=x
  check sim/noise-trace sim --generate bcast:binomial:ranks=4:bytes=8 --noise trace:"$missing"
  check sim/placement sim --generate bcast:binomial:ranks=4:bytes=8 --placement random:x
  files compare compare --
  check compare/setting compare --generate bcast:binomial:ranks=4:bytes=8 --setting "x=--noise os:period=x"
  check compare/csv-folder compare --generate bcast:binomial:ranks=4:bytes=8 --csv "$missing"
  check compare/plot-folder compare --generate bcast:binomial:ranks=4:bytes=8 --plot "$missing"
  check import/missing import "$missing" -o "$out"
  check import/garbage import "$tracedir" -o "$out"
  check import/algorithm import "$tracedir" -o "$out" --algorithm bcast=no-such
  check redist-plan/from redist plan --shape 100x100 --from garbage --to block@2
  check redist-plan/shape redist plan --shape 100xx --from block@2 --to cyclic@2
  check jitter-sweep/noise jitter sweep --noise garbage
  check jitter-sweep/plot-folder jitter sweep --plot "$garbage"
else
  covered=("run" "collective" "calibrate-delay" "calibrate" "redist run" "sweep jitter"
           "sweep compare")
  check top/unknown-option --no-such-option
  check top/unknown-command no-such-command
  files run run --
  check run/timeout run "$here/../data/mpi/every_op.json" --timeout -1
  check run/reps run "$here/../data/mpi/every_op.json" --reps x
  files collective collective -- --call alltoallv
  check collective/call collective "$pattern" --call no-such
  check calibrate-delay/steps calibrate-delay --steps 0
  check calibrate-delay/bytes calibrate-delay --bytes -5
  check calibrate/output-folder-missing calibrate --quick -o "$missing"
  check calibrate/pairs calibrate --quick -o "$out" --pairs some
  check redist-run/shape redist run --shape 1x --from block@2 --to cyclic@2
  check redist-run/from redist run --shape 100x100 --from garbage --to cyclic@2
  check sweep-jitter/noise sweep jitter --noise garbage
  check sweep-jitter/plot-folder sweep jitter --plot "$garbage"
  files sweep-compare sweep compare --
  check sweep-compare/csv-folder sweep compare --generate bcast:binomial:ranks=4:bytes=8 --csv "$missing"
fi

# Every entry point the tool lists has cases above.
while IFS= read -r entry; do
  found=0
  for c in "${covered[@]}"; do [[ $c == "$entry" ]] && found=1; done
  if [[ $found -eq 0 ]]; then
    failures=$((failures + 1))
    echo "FAIL: '$(basename "$tool") $entry' is listed by --help but has no case in $0" >&2
  fi
done < <(listed)

echo "every_entry_point: $cases cases, $failures failed"
[[ $failures -eq 0 ]]
