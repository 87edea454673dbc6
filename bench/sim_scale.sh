#!/usr/bin/env bash
# Simulator speed: how many events per second `choreo sim` processes as the rank count grows,
# side by side with LogGOPSim's figures measured earlier on this machine (see bench/README.md).
#
# Cases (each repeated --reps times; medians reported):
#   allreduce:recdbl (bytes=8, reduce_ns=0) at 2^10, 2^12, ..., 2^20 ranks, generated in memory
#   bcast:binomial (bytes=8) at 2^20 ranks, generated in memory
#   allreduce:recdbl at 2^16 ranks read from a GOAL file (file-input speed)
#
# Writes DIR/sim_scale.csv (one row per case), DIR/sim_scale_runs.csv (one row per run) and
# DIR/sim_scale.png; prints a table on stdout; progress goes to stderr.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/sim_scale.sh [-o DIR] [--reps N] [--max-log2 K] [--choreo PATH]

Measures choreo's discrete-event simulator (events/s, simulation time, build time, peak RSS)
on recursive-doubling allreduce at 2^10..2^20 ranks and binomial broadcast at 2^20 ranks,
plus the 2^16 allreduce read from a GOAL file, and compares events/s with LogGOPSim's
figures measured earlier on this machine.

  -o, --output DIR  where to write sim_scale.csv, sim_scale_runs.csv, sim_scale.png
                    (default out/bench)
  --reps N          runs per case; medians are reported (default 3)
  --max-log2 K      largest rank count is 2^K, 10 <= K <= 20 (default 20); for quick runs.
                    The broadcast runs at 2^K ranks, the GOAL case at 2^min(K,16)
  --choreo PATH     choreo binary (default build/default/tools/choreo, built if missing)
  -h, --help        this help

P = 2^20 needs about 3 GiB of memory and ~10 s per run.
EOF
}

cd "$(dirname "$0")/.."

outdir=out/bench
reps=3
max_log2=20
choreo=build/default/tools/choreo
while (($#)); do
  case $1 in
    -o | --output) outdir=${2:?-o needs a directory}; shift 2 ;;
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --max-log2) max_log2=${2:?--max-log2 needs a number}; shift 2 ;;
    --choreo) choreo=${2:?--choreo needs a path}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "sim_scale: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "sim_scale: --reps must be a positive integer" >&2; exit 2; }
[[ $max_log2 =~ ^[0-9]+$ ]] && ((max_log2 >= 10 && max_log2 <= 20)) ||
  { echo "sim_scale: --max-log2 must be in 10..20" >&2; exit 2; }

say() { printf 'sim_scale: %s\n' "$*" >&2; }

if [[ ! -x $choreo ]]; then
  if [[ $choreo == build/default/tools/choreo ]]; then
    scripts/build default
  else
    echo "sim_scale: $choreo is not an executable" >&2; exit 1
  fi
fi
command -v jq >/dev/null || { echo "sim_scale: jq is required" >&2; exit 1; }

# LogGOPSim reference (built with -O2, measured earlier on this machine; it cannot be built
# here now). Recursive-doubling allreduce, 8 bytes: log2(ranks) events seconds rss_bytes.
# The RSS of the 2^16 run was not recorded.
declare -A lgs_events=([16]=4200000 [18]=18900000)
declare -A lgs_seconds=([16]=4.3 [18]=22)
declare -A lgs_rss=([16]= [18]=800000000)

mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

csv=$outdir/sim_scale.csv
runs_csv=$outdir/sim_scale_runs.csv
png=$outdir/sim_scale.png

machine="$(nproc) CPUs, $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1), $(free -g | awk '/^Mem:/{print $2}') GiB"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
say "machine: $machine; load average $load_start"
say "choreo: $choreo ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$(dirname "$choreo")/../CMakeCache.txt" 2>/dev/null || echo unknown build type))"

echo "case,input,rep,ranks,events,makespan_ns,sim_seconds,events_per_second,build_seconds,wall_seconds,peak_rss_bytes,schedule_bytes,state_bytes" >"$runs_csv"

# run_case NAME INPUT LOG2 SPEC: runs `choreo sim` --reps times, appends to $runs_csv.
# INPUT is "generate" (schedule built in memory) or "goal" (schedule read from a GOAL file).
run_case() {
  local name=$1 input=$2 log2=$3 spec=$4 rep t0 t1 fields
  local -a cmd
  if [[ $input == goal ]]; then
    say "$name: writing $spec to a GOAL file"
    "$choreo" generate "$spec" -o "$tmp/$name.goal" >/dev/null
    cmd=("$choreo" sim "$tmp/$name.goal" --json)
  else
    cmd=("$choreo" sim --generate "$spec" --json)
  fi
  for ((rep = 1; rep <= reps; rep++)); do
    say "$name: run $rep/$reps: ${cmd[*]}"
    t0=$(date +%s.%N)
    "${cmd[@]}" >"$tmp/run.json"
    t1=$(date +%s.%N)
    fields=$(jq -r '[.ranks, .events, .makespan, .sim_seconds, .events_per_second,
                     .build_seconds] | map(tostring) | join(",")' "$tmp/run.json")
    local tail
    tail=$(jq -r '[.peak_rss_bytes, .schedule_bytes, .state_bytes] | map(tostring) | join(",")' "$tmp/run.json")
    echo "$name,$input,$rep,$fields,$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f", b - a}'),$tail" >>"$runs_csv"
  done
  rm -f "$tmp/run.json" "$tmp/$name.goal"
  echo "$name $input $log2" >>"$tmp/cases"
}

: >"$tmp/cases"
for log2 in 10 12 14 16 18 20; do
  ((log2 <= max_log2)) || continue
  run_case "allreduce-recdbl-2^$log2" generate "$log2" \
    "allreduce:recdbl:ranks=$((1 << log2)):bytes=8:reduce_ns=0"
done
run_case "bcast-binomial-2^$max_log2" generate "$max_log2" \
  "bcast:binomial:ranks=$((1 << max_log2)):bytes=8"
goal_log2=$((max_log2 < 16 ? max_log2 : 16))
run_case "allreduce-recdbl-2^$goal_log2-goalfile" goal "$goal_log2" \
  "allreduce:recdbl:ranks=$((1 << goal_log2)):bytes=8:reduce_ns=0"

# Per-case summary: medians of the timing columns, max of peak RSS; events and makespan must
# agree across runs (the simulator is deterministic).
echo "case,input,ranks,log2_ranks,reps,events,makespan_ns,sim_seconds_median,events_per_second_median,build_seconds_median,wall_seconds_median,wall_events_per_second,peak_rss_bytes_max,schedule_bytes,state_bytes,loggopsim_events,loggopsim_seconds,loggopsim_events_per_second,loggopsim_rss_bytes,ratio_events_per_second_vs_loggopsim,ratio_wall_vs_loggopsim" >"$csv"
while read -r name input log2; do
  awk -F, -v name="$name" -v log2="$log2" -v reps="$reps" \
      -v lev="${lgs_events[$log2]:-}" -v ls="${lgs_seconds[$log2]:-}" -v lrss="${lgs_rss[$log2]:-}" '
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $1 == name {
      n++; input = $2; ranks = $4
      if (n > 1 && ($5 != events || $6 != makespan)) {
        printf "sim_scale: %s: runs disagree on events/makespan\n", name > "/dev/stderr"; bad = 1
      }
      events = $5; makespan = $6; sim[n] = $7; eps[n] = $8; build[n] = $9; wall[n] = $10
      if ($11 > rss) rss = $11
      sb = $12; st = $13
    }
    END {
      if (bad || n != reps) exit 1
      ms = median(sim, n); me = median(eps, n); mb = median(build, n); mw = median(wall, n)
      weps = events / mw
      lgs_eps = ""; ratio = ""; wratio = ""
      if (lev != "" && input == "generate" && name ~ /^allreduce/) {
        lgs_eps = sprintf("%.0f", lev / ls); ratio = sprintf("%.2f", me / (lev / ls))
        wratio = sprintf("%.2f", weps / (lev / ls))
      } else { lev = ""; ls = ""; lrss = "" }
      printf "%s,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.6f,%.0f,%.6f,%.6f,%.0f,%.0f,%.0f,%.0f,%s,%s,%s,%s,%s,%s\n",
        name, input, ranks, log2, n, events, makespan, ms, me, mb, mw, weps, rss, sb, st,
        lev, ls, lgs_eps, lrss, ratio, wratio
    }' "$runs_csv" >>"$csv"
done <"$tmp/cases"

# Table.
{
  echo "Simulator speed, medians of $reps runs; machine: $machine; $(date +%F)"
  echo "load average (1/5/15 min) at start: $load_start, at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "sim = event loop only; build = generating or parsing the schedule; wall = whole 'choreo sim' process"
  echo "LogGOPSim columns: LogGOPSim (measured earlier, same machine, -O2), quoted, not re-run"
  echo
  awk -F, 'NR > 1 {
      lg = $18 == "" ? "-" : sprintf("%.2f M", $18 / 1e6)
      r = $20 == "" ? "-" : $20 "x"; rw = $21 == "" ? "-" : $21 "x"
      lrss = $19 == "" ? "-" : sprintf("%.2f", $19 / 1e9)
      printf "%s|%s|%.0f|%.0f|%.0f|%.3f|%.2f M|%.3f|%.3f|%.2f|%s|%s|%s|%s\n",
        $1, $2, $3, $6, $7, $8, $9 / 1e6, $10, $11, $13 / 1e9, lg, lrss, r, rw
    }
    BEGIN { print "case|input|ranks|events|makespan ns|sim s|events/s|build s|wall s|peak RSS GB|LogGOPSim events/s|LogGOPSim RSS GB|choreo/LogGOPSim events/s|same, choreo wall" }
  ' "$csv" | column -t -s'|'
  echo
  awk -F, 'NR > 1 && $20 != "" {
      printf "ratio choreo/LogGOPSim events/s at %.0f ranks: %sx (simulation only), %sx (whole choreo process incl. building the schedule); LogGOPSim: %.1f M events in %s s\n",
        $3, $20, $21, $16 / 1e6, $17
    }' "$csv"
}

# Chart.
if command -v gnuplot >/dev/null; then
  awk -F, 'NR > 1 && $2 == "generate" && $1 ~ /^allreduce/ {print $4, $9, $8}' "$csv" >"$tmp/allreduce.dat"
  awk -F, 'NR > 1 && $1 ~ /^bcast/ {print $4, $9, $8}' "$csv" >"$tmp/bcast.dat"
  awk -F, 'NR > 1 && $2 == "goal" {print $4, $9, $8, $10}' "$csv" >"$tmp/goal.dat"
  awk -F, 'NR > 1 && $18 != "" {print $4, $18, $17}' "$csv" >"$tmp/lgs.dat"
  [[ -s $tmp/lgs.dat ]] || echo "16 0 0" >"$tmp/lgs.dat" # keeps gnuplot quiet on quick runs
  gnuplot <<EOF
set terminal pngcairo size 1500,820 font "Sans,12"
set output "$png"
set multiplot layout 1,2 title "choreo sim: recursive-doubling allreduce (8 B) and binomial bcast (8 B), LogGOPS ideal network, medians of $reps runs\n$machine" font "Sans,13"
set grid
set key below Left reverse maxrows 4 spacing 1.1
set bmargin 10
set xlabel "ranks (log2 scale)"
set xtics ("2^{10}" 10, "2^{12}" 12, "2^{14}" 14, "2^{16}" 16, "2^{18}" 18, "2^{20}" 20)
set xrange [9.5:20.5]
set logscale y 10
set format y "10^{%L}"

set title "simulation speed"
set ylabel "events per second (event loop only)"
set yrange [1e5:1e8]
plot "$tmp/allreduce.dat" using 1:2 with linespoints lw 2 pt 7 ps 1.3 title "choreo, allreduce recdbl (in memory)", \
     "$tmp/bcast.dat" using 1:2 with points pt 5 ps 1.8 title "choreo, bcast binomial (in memory)", \
     "$tmp/goal.dat" using 1:2 with points pt 9 ps 2 title "choreo, allreduce recdbl (GOAL file)", \
     "$tmp/lgs.dat" using 1:(\$2 > 0 ? \$2 : 1/0) with linespoints lw 2 dt 2 pt 13 ps 1.8 title "LogGOPSim, allreduce recdbl (measured earlier, same machine, -O2)"

set title "simulation time (event loop; GOAL file: parsing)"
set ylabel "time (s)"
set yrange [1e-4:1e2]
plot "$tmp/allreduce.dat" using 1:3 with linespoints lw 2 pt 7 ps 1.3 title "choreo, allreduce recdbl: event loop", \
     "$tmp/bcast.dat" using 1:3 with points pt 5 ps 1.8 title "choreo, bcast binomial: event loop", \
     "$tmp/goal.dat" using 1:4 with points pt 9 ps 2 title "choreo, allreduce recdbl: parsing the GOAL file", \
     "$tmp/lgs.dat" using 1:(\$3 > 0 ? \$3 : 1/0) with linespoints lw 2 dt 2 pt 13 ps 1.8 title "LogGOPSim, allreduce recdbl: run time (measured earlier, same machine, -O2)"
unset multiplot
EOF
  say "wrote $png"
else
  say "gnuplot not found: no chart"
fi
say "wrote $csv and $runs_csv"
