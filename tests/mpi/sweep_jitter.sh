#!/usr/bin/env bash
# choreo-mpi sweep jitter writes what choreo jitter sweep writes: the same small study (ring,
# Rabenseifner, the rule's T, a capped K, an x out of reach) run serially and on each given
# number of ranks, the CSV and the figures' data byte for byte, the JSON byte for byte but for
# "seconds" (the run's wall time), and the PNGs too when gnuplot is there.
set -euo pipefail
# usage: sweep_jitter.sh CHOREO CHOREO_MPI WORK "RANKS..." MPIEXEC [ARGS...] (up to its -n flag)
choreo=$1 choreo_mpi=$2 work=$3 rank_counts=$4
shift 4
mpiexec=("$@")
rm -rf "$work" && mkdir -p "$work"
fail() { echo "sweep_jitter: $*" >&2; exit 1; }
study=(--axis tcomm --x-range 1e-2:1e1 --log2-ranks 2:5 --ranks 6,32,100 --trials 5 --seed 11
  --algorithms butterfly,ring,rabenseifner --auto-t --max-t 3 --net-duration 2us)
plot=()
if command -v gnuplot > /dev/null; then plot=(--plot); fi
without_seconds() { grep -v '"seconds":' "$1"; }

"$choreo" --json jitter sweep "${study[@]}" -o "$work/serial.csv" ${plot:+"${plot[@]}" "$work/serial_plot"} \
  > "$work/serial.json" 2> "$work/serial.err"
[ "$(wc -l < "$work/serial.csv")" = 10 ] || fail "the serial CSV has not 9 rows"
grep -q '"points": 9,' "$work/serial.json" || fail "the serial sweep has not 9 points"
grep -q '"skipped_x": \[' "$work/serial.json" || fail "no skipped_x in the serial JSON"
for n in $rank_counts; do
  "${mpiexec[@]}" "$n" "$choreo_mpi" sweep jitter "${study[@]}" -o "$work/mpi_$n.csv" --json \
    ${plot:+"${plot[@]}" "$work/mpi_${n}_plot"} > "$work/mpi_$n.json" 2> "$work/mpi_$n.err" ||
    { cat "$work/mpi_$n.err" >&2; fail "$n ranks: the sweep failed"; }
  cmp "$work/serial.csv" "$work/mpi_$n.csv" || fail "$n ranks: the CSV differs from the serial one"
  cmp <(without_seconds "$work/serial.json") <(without_seconds "$work/mpi_$n.json") ||
    fail "$n ranks: the JSON differs from the serial one"
  if [ ${#plot[@]} -gt 0 ]; then
    for f in "$work"/serial_plot/*; do
      cmp "$f" "$work/mpi_${n}_plot/$(basename "$f")" || fail "$n ranks: $(basename "$f") differs"
    done
  fi
  echo "sweep_jitter: $n ranks: CSV, JSON${plot:+ and figures} identical to the serial run"
done
echo "sweep_jitter: OK"
