#!/usr/bin/env bash
# choreo compare against choreo sim, and choreo-mpi sweep compare against choreo compare: two
# schedules (a GOAL file and a generated allreduce) under three settings (the defaults, a
# switch whose links are shared fairly, the same with OS noise over 3 trials). Every makespan in
# the CSV must be what `choreo sim --json` prints for that schedule, setting and noise seed (the
# independent path); then the comparison run on each given number of ranks must print the same
# table and JSON and write the same CSV (and figure, with gnuplot), byte for byte.
set -euo pipefail
# usage: sweep_compare.sh CHOREO CHOREO_MPI GOAL_FILE WORK "RANKS..." MPIEXEC [ARGS...]
choreo=$1 choreo_mpi=$2 goal=$3 work=$4 rank_counts=$5
shift 5
mpiexec=("$@")
rm -rf "$work" && mkdir -p "$work"
fail() { echo "sweep_compare: $*" >&2; exit 1; }
spec=allreduce:recdbl:ranks=16:bytes=4096
fair="--network switch:16 --sharing fair --G 8"
noisy="$fair --noise os:period=100us,duration=5us --noise seed=7"
comparison=("$goal" --generate "$spec" --setting "" --setting "fair=$fair" --setting "noisy=$noisy"
  --trials 3)
plot=()
if command -v gnuplot > /dev/null; then plot=(--plot); fi

"$choreo" compare "${comparison[@]}" --csv "$work/serial.csv" ${plot:+"${plot[@]}" "$work/serial.png"} \
  > "$work/serial.txt" \
  2> "$work/serial.err" || { cat "$work/serial.err" >&2; fail "choreo compare failed"; }
"$choreo" --json compare "${comparison[@]}" > "$work/serial.json" 2> /dev/null
# 2 schedules x (1 + 1 + 3 trials) = 10 rows and the header.
[ "$(wc -l < "$work/serial.csv")" = 11 ] || fail "the CSV has not 10 rows"

# Each row against choreo sim: same schedule, same options, the trial's seed.
makespan_of() {  # makespan_of SCHEDULE OPTIONS...: choreo sim's makespan (ns)
  local schedule=$1
  shift
  local source=("$schedule")
  [[ $schedule == *:* ]] && source=(--generate "$schedule")
  "$choreo" --json sim "${source[@]}" "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan"])'
}
checked=0
while IFS=, read -r schedule setting trial seed makespan; do
  case $setting in
    defaults) options=() ;;
    fair) read -r -a options <<< "$fair" ;;
    noisy) read -r -a options <<< "$fair --noise os:period=100us,duration=5us --noise seed=$seed" ;;
    *) fail "unknown setting '$setting' in the CSV" ;;
  esac
  expected=$(makespan_of "$schedule" "${options[@]}")
  [ "$expected" = "$makespan" ] ||
    fail "$schedule under $setting, trial $trial: compare says $makespan ns, choreo sim $expected"
  checked=$((checked + 1))
done < <(python3 -c '
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(",".join([row["schedule"], row["setting"], row["trial"], row["seed"], row["makespan_ns"]]))
' "$work/serial.csv")
[ "$checked" = 10 ] || fail "checked $checked rows, not 10"
grep -q "noisy .* 3 " "$work/serial.txt" || fail "the table does not show the noisy setting's 3 trials"
echo "sweep_compare: 10 makespans equal to choreo sim's"

for n in $rank_counts; do
  "${mpiexec[@]}" "$n" "$choreo_mpi" sweep compare "${comparison[@]}" --csv "$work/mpi_$n.csv" \
    ${plot:+"${plot[@]}" "$work/mpi_$n.png"} > "$work/mpi_$n.txt" 2> "$work/mpi_$n.err" ||
    { cat "$work/mpi_$n.err" >&2; fail "$n ranks: the comparison failed"; }
  "${mpiexec[@]}" "$n" "$choreo_mpi" sweep compare "${comparison[@]}" --json \
    > "$work/mpi_$n.json" 2> /dev/null || fail "$n ranks: the comparison (--json) failed"
  cmp "$work/serial.csv" "$work/mpi_$n.csv" || fail "$n ranks: the CSV differs from the serial one"
  cmp "$work/serial.txt" "$work/mpi_$n.txt" || fail "$n ranks: the table differs"
  cmp "$work/serial.json" "$work/mpi_$n.json" || fail "$n ranks: the JSON differs"
  if [ ${#plot[@]} -gt 0 ]; then
    cmp "$work/serial.png" "$work/mpi_$n.png" || fail "$n ranks: the figure differs"
  fi
  echo "sweep_compare: $n ranks: table, JSON, CSV${plot:+ and figure} identical to the serial run"
done
echo "sweep_compare: OK"
