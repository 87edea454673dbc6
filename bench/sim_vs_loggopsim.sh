#!/usr/bin/env bash
# choreo sim against LogGOPSim, side by side in one run on the same schedules (issue 19, item 3):
# for each rank count, one recursive-doubling allreduce is written once as GOAL text and as
# choreo's binary schedule (.cbs); then, interleaved, rep after rep:
#   choreo sim FILE.goal            whole process from GOAL text (reads, validates, simulates)
#   txt2bin FILE.goal + LogGOPSim   LogGOPSim's whole process from the same GOAL text
#   choreo sim FILE.cbs             whole process from choreo's binary format
#   LogGOPSim FILE.bin              LogGOPSim from its own binary (the txt2bin output above)
# and reports medians (min..max) of wall time and peak RSS (GNU time), choreo's event loop
# alone, and the ratios of each pair measured back to back. Makespans and event counts of the
# two simulators must agree on every case, or the script says so.
set -euo pipefail
export LC_ALL=C

usage() {
  cat <<'EOF'
usage: bench/sim_vs_loggopsim.sh [-o DIR] [--reps N] [--log2 "12 14 16"] [--choreo PATH]
                                 [--loggopsim DIR]

  -o, --output DIR   where to write sim_vs_loggopsim.csv (one row per run) and .md (the
                     table); default out/bench
  --reps N           runs of each of the four per rank count (default 3)
  --log2 "K ..."     rank counts 2^K, 8 <= K <= 20 (default "12 14 16"; 2^18 writes 0.6 GB of
                     GOAL text and LogGOPSim needs ~0.8 GB)
  --choreo PATH      choreo binary (default build/default/tools/choreo, built if missing)
  --loggopsim DIR    a directory with txt2bin, LogGOPSim and LogGOPSim_stable; default DIR/
                     loggopsim under -o, built there once from ../shared/anchors (or
                     $LOGGOPSIM_BUILD)
  -h, --help         this help
LogGOPS parameters: LogGOPSim's defaults (L 2500, o 1500, g 1000, G 6, O 0, S 65535 ns),
passed to both. Progress on stderr; the table on stdout.
EOF
}

start_dir=$PWD
cd "$(dirname "$0")/.."
abspath() { if [[ $1 == /* ]]; then printf '%s' "$1"; else printf '%s/%s' "$start_dir" "$1"; fi; }
outdir=out/bench reps=3 log2s="12 14 16" choreo=build/default/tools/choreo lgs_dir=
while (($#)); do
  case $1 in
    -o | --output) outdir=$(abspath "${2:?-o needs a directory}"); shift 2 ;;
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --log2) log2s=${2:?--log2 needs rank counts}; shift 2 ;;
    --choreo) choreo=$(abspath "${2:?--choreo needs a path}"); shift 2 ;;
    --loggopsim) lgs_dir=$(abspath "${2:?--loggopsim needs a directory}"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "sim_vs_loggopsim: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "sim_vs_loggopsim: --reps must be a positive integer" >&2; exit 1; }
for k in $log2s; do
  [[ $k =~ ^[0-9]+$ ]] && ((k >= 8 && k <= 20)) ||
    { echo "sim_vs_loggopsim: --log2 takes numbers in 8..20, not '$k'" >&2; exit 1; }
done
say() { printf 'sim_vs_loggopsim: %s\n' "$*" >&2; }
[[ -x $choreo ]] || { [[ $choreo == build/default/tools/choreo ]] && scripts/build default; } ||
  { echo "sim_vs_loggopsim: $choreo is not an executable" >&2; exit 1; }
for tool in jq python3 /usr/bin/time; do
  command -v "$tool" >/dev/null ||
    { echo "sim_vs_loggopsim: $tool is missing (apt-get install jq python3 time)" >&2; exit 1; }
done

mkdir -p "$outdir"
source bench/lib/loggopsim.sh
loggopsim_find "${lgs_dir:-$outdir/loggopsim}" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

L=2500 o=1500 g=1000 G=6 O=0 S=65535
choreo_params=(--L $L --o $o --g $g --G $G --O $O --S $S)
lgs_params=(-L $L -o $o -g $g -G $G -O $O -S $S)
csv=$outdir/sim_vs_loggopsim.csv
echo "ranks,rep,run,wall_seconds,peak_rss_kib,loop_seconds,events,makespan_ns" >"$csv"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# timed RANKS REP RUN CMD...: one run under GNU time; appends wall and peak RSS to $csv (the
# choreo runs add their loop time, events and makespan from --json).
timed() {
  local ranks=$1 rep=$2 run=$3 t0 wall rss loop= events= makespan=
  shift 3
  t0=$EPOCHREALTIME
  /usr/bin/time -f %M -o "$tmp/rss" "$@" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; echo "sim_vs_loggopsim: $* failed" >&2; exit 1; }
  wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.6f", b - a}')
  rss=$(tail -1 "$tmp/rss")
  if [[ $run == choreo* ]]; then
    read -r loop events makespan < <(jq -r '"\(.sim_seconds) \(.events) \(.makespan)"' "$tmp/out")
  elif [[ $run == loggopsim* ]]; then
    events=$(sed -n 's/.*Events: \([0-9]*\).*/\1/p' "$tmp/out")
    makespan=$(sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\).*/\1/p' "$tmp/out")
  fi
  echo "$ranks,$rep,$run,$wall,$rss,$loop,$events,$makespan" >>"$csv"
}

for k in $log2s; do
  ranks=$((1 << k))
  goal=$tmp/ar$k.goal cbs=$tmp/ar$k.cbs bin=$tmp/ar$k.bin
  say "2^$k ranks: writing the schedule as GOAL text and as .cbs"
  "$choreo" generate "allreduce:recdbl:ranks=$ranks:bytes=8:reduce_ns=0" -o "$goal" >/dev/null
  "$choreo" convert "$goal" -o "$cbs" >/dev/null
  for ((rep = 1; rep <= reps; rep++)); do
    say "2^$k ranks: rep $rep/$reps"
    timed $ranks $rep choreo-goal "$choreo" sim "$goal" --json "${choreo_params[@]}"
    timed $ranks $rep txt2bin "$lgs/txt2bin" -i "$goal" -o "$bin"
    timed $ranks $rep loggopsim-after-txt2bin "$lgs/LogGOPSim_stable" -b -f "$bin" "${lgs_params[@]}"
    timed $ranks $rep choreo-cbs "$choreo" sim "$cbs" --json "${choreo_params[@]}"
    timed $ranks $rep loggopsim-bin "$lgs/LogGOPSim_stable" -b -f "$bin" "${lgs_params[@]}"
  done
  rm -f "$goal" "$cbs" "$bin"
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

cpu=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
python3 - "$csv" "$(hostname -s), ${cpu:-unknown CPU}, $(nproc) cores" "$(date '+%F %H:%M %Z')" \
  "$load_start" "$load_end" <<'PY' | tee "$outdir/sim_vs_loggopsim.md"
import csv, statistics, sys
from collections import defaultdict

path, machine, when, load_start, load_end = sys.argv[1:]
runs = defaultdict(dict)  # (ranks, rep) -> run -> row
for row in csv.DictReader(open(path)):
    runs[(int(row["ranks"]), int(row["rep"]))][row["run"]] = row

def spread(values, fmt="{:.3f}"):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}..{fmt.format(max(values))})"

print(f"choreo sim against LogGOPSim_stable, same schedules, interleaved; {when}")
print(f"machine: {machine}; load average before {load_start}, after {load_end}")
print("allreduce recdbl 8 B, LogGOPS L 2500 o 1500 g 1000 G 6 O 0 S 65535 ns, ideal network;")
print("medians (min..max) over the reps; each ratio is taken within one rep, then its median.\n")
print("| ranks | events | choreo loop | loop ev/s / LogGOPSim ev/s | GOAL: choreo | GOAL: txt2bin + LogGOPSim | GOAL speed-up | binary: choreo .cbs | binary: LogGOPSim .bin | binary speed-up | peak RSS GOAL choreo / LogGOPSim | peak RSS binary choreo / LogGOPSim |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
warnings = []
for ranks in sorted({r for r, _ in runs}):
    reps = [runs[k] for k in sorted(runs) if k[0] == ranks]
    col = lambda run, key: [float(r[run][key]) for r in reps]
    events = int(reps[0]["choreo-goal"]["events"])
    for r in reps:
        for run in ("choreo-goal", "choreo-cbs", "loggopsim-after-txt2bin", "loggopsim-bin"):
            if (r[run]["events"], r[run]["makespan_ns"]) != (reps[0]["choreo-goal"]["events"], reps[0]["choreo-goal"]["makespan_ns"]):
                warnings.append(f"{ranks} ranks: {run} gives events {r[run]['events']}, makespan {r[run]['makespan_ns']} ns; choreo from GOAL {reps[0]['choreo-goal']['events']}, {reps[0]['choreo-goal']['makespan_ns']} ns")
    goal_choreo = col("choreo-goal", "wall_seconds")
    goal_lgs = [float(r["txt2bin"]["wall_seconds"]) + float(r["loggopsim-after-txt2bin"]["wall_seconds"]) for r in reps]
    bin_choreo, bin_lgs = col("choreo-cbs", "wall_seconds"), col("loggopsim-bin", "wall_seconds")
    loop = col("choreo-goal", "loop_seconds")
    loop_ratio = [(events / l) / (events / b) for l, b in zip(loop, bin_lgs)]
    rss = lambda run: max(col(run, "peak_rss_kib")) / 1024
    lgs_goal_rss = max(rss("txt2bin"), rss("loggopsim-after-txt2bin"))
    print(f"| {ranks} | {events:,} | {spread(loop)} s | {spread(loop_ratio, '{:.1f}')}x | {spread(goal_choreo)} s | {spread(goal_lgs)} s "
          f"| {spread([b / a for a, b in zip(goal_choreo, goal_lgs)], '{:.1f}')}x | {spread(bin_choreo)} s | {spread(bin_lgs)} s "
          f"| {spread([b / a for a, b in zip(bin_choreo, bin_lgs)], '{:.1f}')}x | {rss('choreo-goal'):.0f} / {lgs_goal_rss:.0f} MiB "
          f"| {rss('choreo-cbs'):.0f} / {rss('loggopsim-bin'):.0f} MiB |")
print("\nloop ev/s: choreo's event loop alone against LogGOPSim's whole run from its binary (LogGOPSim")
print("prints no loop time). Peak RSS of txt2bin + LogGOPSim is the larger of the two processes.")
for w in warnings:
    print("WARNING: makespans or events differ:", w)
PY
