#!/usr/bin/env bash
# Simulator speed: how many events per second `choreo sim` processes as the rank count grows,
# side by side with LogGOPSim run in the same invocation, on the same machine, interleaved
# (choreo, LogGOPSim, choreo, LogGOPSim, ...) on the same GOAL schedule (see bench/README.md).
#
# Cases (each repeated --reps times; medians and min..max reported):
#   allreduce:recdbl (bytes=8, reduce_ns=0) at 2^10, 2^12, ..., 2^20 ranks, generated in memory
#   bcast:binomial (bytes=8) at 2^20 ranks, generated in memory
#   allreduce:recdbl at 2^10, ..., 2^18 ranks read from a GOAL file, each run followed by
#     LogGOPSim on the same schedule (converted once with txt2bin); the 2^16 GOAL case is
#     always run (file-input speed), with or without the peer
#
# Writes DIR/sim_scale.csv (one row per case), DIR/sim_scale_runs.csv (one row per run, both
# simulators, in the order run) and DIR/sim_scale.png; prints tables on stdout; progress goes
# to stderr.
set -euo pipefail
export LC_ALL=C # decimal points in $EPOCHREALTIME, awk and the CSVs

usage() {
  cat <<'EOF'
usage: bench/sim_scale.sh [-o DIR] [--reps N] [--max-log2 K] [--choreo PATH]
                          [--loggopsim DIR | --no-loggopsim] [--loggopsim-max-log2 K]

Measures choreo's discrete-event simulator (events/s, event-loop time, whole-process time,
peak RSS) on recursive-doubling allreduce at 2^10..2^20 ranks and binomial broadcast at 2^20
ranks, generated in memory, and on the allreduce read from a GOAL file at 2^10..2^18 ranks.
On the GOAL cases LogGOPSim runs on the same schedule in the same invocation, interleaved
with choreo (choreo, LogGOPSim, choreo, LogGOPSim, ...), with the same LogGOPS parameters;
the ratios are of those measurements, never of figures from another day.

  -o, --output DIR        where to write sim_scale.csv, sim_scale_runs.csv, sim_scale.png
                          (default out/bench)
  --reps N                runs per case (per simulator); medians are reported (default 3)
  --max-log2 K            largest rank count is 2^K, 10 <= K <= 20 (default 20); for quick
                          runs. The broadcast runs at 2^K ranks, the GOAL cases up to
                          2^min(K, max(16, --loggopsim-max-log2)) (2^min(K, 16) without
                          the peer)
  --choreo PATH           choreo binary (default build/default/tools/choreo, built if missing)
  --loggopsim DIR         directory with LogGOPSim's txt2bin, LogGOPSim and LogGOPSim_stable
                          (default DIR/loggopsim under -o, built there once with
                          $LOGGOPSIM_BUILD, default ../shared/anchors/build_loggopsim.sh,
                          and reused while the binaries exist)
  --no-loggopsim          skip the peer: its columns stay empty
  --loggopsim-max-log2 K  run LogGOPSim up to 2^K ranks, 10 <= K <= 20 (default 18: its
                          memory grows fast)
  -h, --help              this help

P = 2^20 needs about 3.5 GiB of memory and ~10 s per run; the GOAL file at 2^18 is ~0.6 GB
(and its binary form as much again) under $TMPDIR.
EOF
}

start_dir=$PWD
cd "$(dirname "$0")/.."
# Paths given on the command line are relative to where the script was started.
abspath() { if [[ $1 == /* ]]; then printf '%s' "$1"; else printf '%s/%s' "$start_dir" "$1"; fi; }

outdir=out/bench
reps=3
max_log2=20
choreo=build/default/tools/choreo
use_lgs=1
lgs_dir=
lgs_max_log2=18
while (($#)); do
  case $1 in
    -o | --output) outdir=$(abspath "${2:?-o needs a directory}"); shift 2 ;;
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --max-log2) max_log2=${2:?--max-log2 needs a number}; shift 2 ;;
    --choreo) choreo=$(abspath "${2:?--choreo needs a path}"); shift 2 ;;
    --loggopsim) lgs_dir=$(abspath "${2:?--loggopsim needs a directory}"); shift 2 ;;
    --no-loggopsim) use_lgs=0; shift ;;
    --loggopsim-max-log2) lgs_max_log2=${2:?--loggopsim-max-log2 needs a number}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "sim_scale: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "sim_scale: --reps must be a positive integer" >&2; exit 2; }
if ! [[ $max_log2 =~ ^[0-9]+$ ]] || ((max_log2 < 10 || max_log2 > 20)); then
  echo "sim_scale: --max-log2 must be in 10..20" >&2; exit 2
fi
if ! [[ $lgs_max_log2 =~ ^[0-9]+$ ]] || ((lgs_max_log2 < 10 || lgs_max_log2 > 20)); then
  echo "sim_scale: --loggopsim-max-log2 must be in 10..20" >&2; exit 2
fi

say() { printf 'sim_scale: %s\n' "$*" >&2; }

if [[ ! -x $choreo ]]; then
  if [[ $choreo == build/default/tools/choreo ]]; then
    scripts/build default
  else
    echo "sim_scale: $choreo is not an executable" >&2; exit 1
  fi
fi
command -v jq >/dev/null || { echo "sim_scale: jq is required" >&2; exit 1; }

# LogGOPS parameters, passed explicitly to both simulators (they are both one's defaults).
L=2500 o=1500 g=1000 G=6 O=0 S=65535
choreo_params=(--L "$L" --o "$o" --g "$g" --G "$G" --O "$O" --S "$S")
lgs_params=(-L "$L" -o "$o" -g "$g" -G "$G" -O "$O" -S "$S")

mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

csv=$outdir/sim_scale.csv
runs_csv=$outdir/sim_scale_runs.csv
png=$outdir/sim_scale.png

# The peer: LogGOPSim from the anchor snapshot, built once into $outdir/loggopsim by default.
# The anchor snapshot sits beside the repository (../shared/anchors), as in the workplace.
lgs_note=
if ((use_lgs)); then
  source bench/lib/loggopsim.sh
  loggopsim_find "${lgs_dir:-$outdir/loggopsim}" || { echo "sim_scale: or pass --no-loggopsim" >&2; exit 1; }
  lgs_dir=$lgs
  lgs_note="LogGOPSim: $lgs_dir/LogGOPSim (spcl/LogGOPSim 76451de, g++ -O2), run on each GOAL case up to 2^$lgs_max_log2 ranks"
else
  lgs_note="LogGOPSim: not run (--no-loggopsim); its columns are empty"
fi
say "$lgs_note"

# GNU time for the peak RSS of LogGOPSim (choreo reports its own). Both simulators run under it,
# so its small start-up cost is in both wall times.
gnu_time=/usr/bin/time
if ! "$gnu_time" -f %M true >/dev/null 2>&1; then
  if ((EUID == 0)) && command -v apt-get >/dev/null; then
    say "installing GNU time (for LogGOPSim's peak RSS)"
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends time; } >&2 || true
  fi
  "$gnu_time" -f %M true >/dev/null 2>&1 || { gnu_time=; say "no GNU time: LogGOPSim's peak RSS is not recorded"; }
fi

cpu_model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
machine="$(hostname -s), ${cpu_model:-unknown CPU}, $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB"
run_date=$(date '+%F %H:%M %Z')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
say "machine: $machine; load average $load_start"
say "choreo: $choreo ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$(dirname "$choreo")/../CMakeCache.txt" 2>/dev/null || echo unknown build type))"

echo "seq,tool,case,input,rep,ranks,events,makespan_ns,sim_seconds,events_per_second,build_seconds,wall_seconds,peak_rss_bytes,schedule_bytes,state_bytes" >"$runs_csv"
seq=0

# timed OUT CMD...: runs CMD (stdout to OUT, stderr to OUT.err) under GNU time when available;
# sets $elapsed (seconds, the script's clock, whole process) and $rss_kib (GNU time's %M).
timed() {
  local out=$1 t0 t1
  shift
  rss_kib=
  t0=$EPOCHREALTIME
  if [[ -n $gnu_time ]]; then
    "$gnu_time" -f %M -o "$tmp/rss" "$@" >"$out" 2>"$out.err" || { cat "$out.err" >&2; return 1; }
  else
    "$@" >"$out" 2>"$out.err" || { cat "$out.err" >&2; return 1; }
  fi
  t1=$EPOCHREALTIME
  elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f", b - a}')
  [[ -z $gnu_time ]] || rss_kib=$(tail -1 "$tmp/rss")
}

# run_choreo NAME INPUT REP CMD...: one timed `choreo sim ... --json` run, appended to $runs_csv.
run_choreo() {
  local name=$1 input=$2 rep=$3 fields tail
  shift 3
  say "$name: choreo run $rep/$reps: $*"
  timed "$tmp/run.json" "$@"
  jq -e --argjson L "$L" --argjson o "$o" --argjson g "$g" --argjson G "$G" --argjson O "$O" \
    --argjson S "$S" '.params == {L: $L, o: $o, g: $g, G: $G, O: $O, S: $S}' "$tmp/run.json" >/dev/null ||
    { echo "sim_scale: choreo did not use the LogGOPS parameters asked for" >&2; exit 1; }
  fields=$(jq -r '[.ranks, .events, .makespan, .sim_seconds, .events_per_second,
                   .build_seconds] | map(tostring) | join(",")' "$tmp/run.json")
  tail=$(jq -r '[.peak_rss_bytes, .schedule_bytes, .state_bytes] | map(tostring) | join(",")' "$tmp/run.json")
  seq=$((seq + 1))
  echo "$seq,choreo,$name,$input,$rep,$fields,$elapsed,$tail" >>"$runs_csv"
  choreo_makespan=$(jq -r .makespan "$tmp/run.json")
  rm -f "$tmp/run.json" "$tmp/run.json.err"
}

# run_lgs NAME BINARY REP BIN_FILE: one timed LogGOPSim run on BIN_FILE; appended to $runs_csv
# (tool = the binary's name) and sets $lgs_makespan and $lgs_events from what LogGOPSim prints.
run_lgs() {
  local name=$1 binary=$2 rep=$3 bin=$4 ranks rss=
  if [[ $binary == LogGOPSim ]]; then say "$name: $binary run $rep/$reps"; else say "$name: $binary, once, for the makespan check"; fi
  timed "$tmp/lgs.out" "$lgs_dir/$binary" -b -f "$bin" "${lgs_params[@]}"
  # "PERFORMANCE: Processes: P \t Events: N \t Time: ..." and "Maximum finishing time at host H: T (...)"
  ranks=$(sed -n 's/^PERFORMANCE: Processes: \([0-9]*\).*/\1/p' "$tmp/lgs.out")
  lgs_events=$(sed -n 's/.*Events: \([0-9]*\).*/\1/p' "$tmp/lgs.out")
  lgs_makespan=$(sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\).*/\1/p' "$tmp/lgs.out")
  if [[ -z $ranks || -z $lgs_events || -z $lgs_makespan ]]; then
    cat "$tmp/lgs.out" >&2
    echo "sim_scale: could not read LogGOPSim's output (above)" >&2
    exit 1
  fi
  [[ -z $rss_kib ]] || rss=$((rss_kib * 1024))
  seq=$((seq + 1))
  # LogGOPSim's own timer counts whole seconds: sim_seconds and events_per_second stay empty.
  echo "$seq,$binary,$name,goal,$rep,$ranks,$lgs_events,$lgs_makespan,,,,$elapsed,$rss,," >>"$runs_csv"
  rm -f "$tmp/lgs.out" "$tmp/lgs.out.err"
}

# Per-case facts about the peer (one line per case in $tmp/peer: name txt2bin_seconds
# events_source makespan_check stable_makespan), read by the summary.
: >"$tmp/peer"

# run_case NAME INPUT LOG2 SPEC [PEER]: runs `choreo sim` --reps times, appends to $runs_csv.
# INPUT is "generate" (schedule built in memory) or "goal" (schedule read from a GOAL file).
# With PEER = 1 (GOAL only), each choreo run is followed by a LogGOPSim run on the same file.
run_case() {
  local name=$1 input=$2 log2=$3 spec=$4 peer=${5:-0} rep goal bin t0 t1 t2b check stable
  local -a cmd
  if [[ $input == goal ]]; then
    goal=$tmp/$name.goal bin=$tmp/$name.bin
    say "$name: writing $spec to a GOAL file"
    "$choreo" generate "$spec" -o "$goal" >/dev/null
    cmd=("$choreo" sim "$goal" --json "${choreo_params[@]}")
    if ((peer)); then
      say "$name: converting the GOAL file for LogGOPSim (txt2bin, once, not timed in the comparison)"
      t0=$EPOCHREALTIME
      "$lgs_dir/txt2bin" -i "$goal" -o "$bin" >"$tmp/txt2bin.log" 2>&1 ||
        { cat "$tmp/txt2bin.log" >&2; echo "sim_scale: txt2bin failed" >&2; exit 1; }
      t1=$EPOCHREALTIME
      t2b=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f", b - a}')
    fi
  else
    cmd=("$choreo" sim --generate "$spec" --json "${choreo_params[@]}")
  fi
  local lgs_m='' choreo_m=''
  for ((rep = 1; rep <= reps; rep++)); do
    run_choreo "$name" "$input" "$rep" "${cmd[@]}"
    choreo_m=$choreo_makespan
    if ((peer)); then
      run_lgs "$name" LogGOPSim "$rep" "$bin"
      lgs_m=$lgs_makespan
    fi
  done
  if ((peer)); then
    if [[ $lgs_m == "$choreo_m" ]]; then
      check="equal (LogGOPSim)" stable=
    else
      say "$name: LogGOPSim's makespan $lgs_m ns differs from choreo's $choreo_m ns; trying LogGOPSim_stable"
      run_lgs "$name" LogGOPSim_stable 1 "$bin"
      stable=$lgs_makespan
      if [[ $stable == "$choreo_m" ]]; then
        check="equal (LogGOPSim_stable; LogGOPSim gives $lgs_m)"
      else
        check="DIFFERS (choreo $choreo_m; LogGOPSim $lgs_m; LogGOPSim_stable $stable)"
      fi
    fi
    [[ $check == equal* ]] || echo "sim_scale: WARNING: $name: makespans differ: $check" >&2
    echo "$name|$t2b|$check|$stable" >>"$tmp/peer"
  fi
  rm -f "${goal:-}" "${bin:-}"
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
# GOAL cases: up to 2^16 always (file-input speed), further while LogGOPSim runs.
goal_max=$((lgs_max_log2 > 16 && use_lgs ? lgs_max_log2 : 16))
goal_max=$((goal_max < max_log2 ? goal_max : max_log2))
for log2 in 10 12 14 16 18 20; do
  ((log2 <= goal_max)) || continue
  peer=$((use_lgs && log2 <= lgs_max_log2))
  run_case "allreduce-recdbl-2^$log2-goalfile" goal "$log2" \
    "allreduce:recdbl:ranks=$((1 << log2)):bytes=8:reduce_ns=0" "$peer"
done

# Per-case summary: medians and min..max of the timing columns, max of peak RSS; events and
# makespan must agree across runs (both simulators are deterministic). Ratios: each choreo run
# against the LogGOPSim run right after it, the median (min..max) of those pairs.
echo "case,input,ranks,log2_ranks,reps,events,makespan_ns,sim_seconds_median,sim_seconds_min,sim_seconds_max,events_per_second_median,build_seconds_median,wall_seconds_median,wall_seconds_min,wall_seconds_max,wall_events_per_second_median,peak_rss_bytes_max,schedule_bytes,state_bytes,loggopsim_events,loggopsim_events_source,loggopsim_wall_seconds_median,loggopsim_wall_seconds_min,loggopsim_wall_seconds_max,loggopsim_wall_events_per_second_median,loggopsim_peak_rss_bytes_max,loggopsim_txt2bin_seconds_excluded,loggopsim_makespan_ns,loggopsim_stable_makespan_ns,makespan_check,ratio_loop_vs_loggopsim_median,ratio_loop_vs_loggopsim_min,ratio_loop_vs_loggopsim_max,ratio_wall_vs_loggopsim_median,ratio_wall_vs_loggopsim_min,ratio_wall_vs_loggopsim_max" >"$csv"
while read -r name input log2; do
  peer_line=$(awk -F'|' -v n="$name" '$1 == n' "$tmp/peer")
  awk -F, -v name="$name" -v log2="$log2" -v reps="$reps" -v peer="$peer_line" '
    function sorted(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    }
    function median(a, n) { sorted(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    function lo(a, n) { sorted(a, n); return a[1] }
    function hi(a, n) { sorted(a, n); return a[n] }
    function f(x, fmt) { return x == "" ? "" : sprintf(fmt, x) }
    $3 == name && $2 == "choreo" {
      n++; input = $4; ranks = $6
      if (n > 1 && ($7 != events || $8 != makespan)) {
        printf "sim_scale: %s: choreo runs disagree on events/makespan\n", name > "/dev/stderr"; bad = 1
      }
      events = $7; makespan = $8; sim[n] = $9; eps[n] = $10; build[n] = $11; wall[n] = $12
      weps[n] = $7 / $12
      if ($13 > rss) rss = $13
      sb = $14; st = $15
    }
    $3 == name && $2 == "LogGOPSim" {
      m++
      if (m > 1 && ($7 != levents || $8 != lmakespan)) {
        printf "sim_scale: %s: LogGOPSim runs disagree on events/makespan\n", name > "/dev/stderr"; bad = 1
      }
      levents = $7; lmakespan = $8; lwall[m] = $12; lweps[m] = $7 / $12
      if ($13 != "" && $13 > lrss) lrss = $13
      # pairs: this LogGOPSim run and the choreo run just before it (same rep)
      rl[m] = (events / sim[n]) / lweps[m]; rw[m] = weps[n] / lweps[m]
    }
    END {
      if (bad || n != reps || (m && m != reps)) exit 1
      split(peer, p, "|")
      lcols = ",,,,,,,,,,,,,,,,"
      if (m) {
        lcols = sprintf("%.0f,%s,%.6f,%.6f,%.6f,%.0f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s",
          levents, "printed by LogGOPSim (ops + messages)", median(lwall, m), lo(lwall, m), hi(lwall, m),
          median(lweps, m), f(lrss, "%.0f"), p[2], lmakespan, p[4], p[3],
          f(median(rl, m), "%.3f"), f(lo(rl, m), "%.3f"), f(hi(rl, m), "%.3f"),
          f(median(rw, m), "%.3f"), f(lo(rw, m), "%.3f"), f(hi(rw, m), "%.3f"))
      }
      printf "%s,%s,%.0f,%.0f,%.0f,%.0f,%.0f,%.6f,%.6f,%.6f,%.0f,%.6f,%.6f,%.6f,%.6f,%.0f,%.0f,%.0f,%.0f,%s\n",
        name, input, ranks, log2, n, events, makespan, median(sim, n), lo(sim, n), hi(sim, n),
        median(eps, n), median(build, n), median(wall, n), lo(wall, n), hi(wall, n), median(weps, n),
        rss, sb, st, lcols
    }' "$runs_csv" >>"$csv"
done <"$tmp/cases"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# Tables.
{
  echo "Simulator speed, medians (min..max) of $reps run(s) per simulator; $run_date"
  echo "machine: $machine"
  echo "load average (1/5/15 min) before: $load_start, after: $load_end"
  echo "choreo: $choreo; LogGOPS L=$L o=$o g=$g G=$G O=$O S=$S, ideal network, passed explicitly to both simulators"
  echo "$lgs_note"
  echo "loop = choreo's event loop only; build = generating or parsing (and validating) the schedule;"
  echo "process = the whole process, timed by this script (choreo: build + loop + JSON output)"
  echo
  awk -F, 'NR > 1 {
      printf "%s|%s|%.0f|%.0f|%.0f|%.3f|%.2f M|%.3f|%.3f|%.2f M|%.2f\n",
        $1, $2, $3, $6, $7, $8, $11 / 1e6, $12, $13, $16 / 1e6, $17 / 1e9
    }
    BEGIN { print "case|input|ranks|events|makespan ns|loop s|loop events/s|build s|process s|process events/s|peak RSS GB" }
  ' "$csv" | column -t -s'|'
  echo
  if ((use_lgs)); then
    echo "Side by side on the same GOAL file, interleaved (choreo, LogGOPSim, choreo, LogGOPSim, ...):"
    echo "choreo parses (and validates) the GOAL text; LogGOPSim maps the binary that txt2bin made once"
    echo "beforehand (txt2bin excluded from its time; in the CSV). LogGOPSim's events: its own printed count."
    echo "Ratios: each choreo run against the LogGOPSim run right after it; median (min..max) of the pairs."
    echo
    awk -F, 'function r(m, a, b) { return sprintf("%.3f (%.3f..%.3f)", m, a, b) }
      function x(m, a, b) { return sprintf("%.2fx (%.2f..%.2f)", m, a, b) }
      NR > 1 && $20 != "" {
        printf "%s|%.0f|%.0f / %.0f|%s|%s|%s|%.2f M|%.2f M|%.2f M|%s|%s|%.2f / %s|%s\n",
          $1, $3, $6, $20, r($8, $9, $10), r($13, $14, $15), r($22, $23, $24),
          $11 / 1e6, $16 / 1e6, $25 / 1e6, x($31, $32, $33), x($34, $35, $36),
          $17 / 1e9, ($26 == "" ? "-" : sprintf("%.2f", $26 / 1e9)), $30
      }
      BEGIN { print "case|ranks|events choreo / LogGOPSim|choreo loop s|choreo process s|LogGOPSim process s|choreo loop ev/s|choreo process ev/s|LogGOPSim process ev/s|loop / LogGOPSim|process / LogGOPSim|RSS GB choreo / LogGOPSim|makespans" }
    ' "$csv" | column -t -s'|'
    awk -F, 'NR > 1 && $20 != "" && $30 !~ /^equal/ { printf "WARNING: %s: makespans differ: %s\n", $1, $30 }' "$csv"
  else
    echo "LogGOPSim was not run (--no-loggopsim): no peer columns, no ratios."
  fi
}

# Chart.
if command -v gnuplot >/dev/null; then
  awk -F, 'NR > 1 && $2 == "generate" && $1 ~ /^allreduce/ {print $4, $11, $8}' "$csv" >"$tmp/allreduce.dat"
  awk -F, 'NR > 1 && $1 ~ /^bcast/ {print $4, $11, $8}' "$csv" >"$tmp/bcast.dat"
  # log2, loop ev/s, loop s, process ev/s, process s (median, min, max), build s
  awk -F, 'NR > 1 && $2 == "goal" {print $4, $11, $8, $16, $13, $14, $15, $12}' "$csv" >"$tmp/goal.dat"
  # log2, process ev/s, process s (median, min, max)
  awk -F, 'NR > 1 && $20 != "" {print $4, $25, $22, $23, $24}' "$csv" >"$tmp/lgs.dat"
  lgs_ev='' lgs_t=''
  if [[ -s $tmp/lgs.dat ]]; then
    lgs_ev=", \"$tmp/lgs.dat\" using 1:2 with linespoints lw 2.5 lc rgb '#d62728' dt 2 pt 13 ps 1.8 title 'LogGOPSim (measured in this run): whole process, same GOAL schedule (binary)'"
    lgs_t=", \"$tmp/lgs.dat\" using 1:3:4:5 with yerrorlines lw 2.5 lc rgb '#d62728' dt 2 pt 13 ps 1.8 title 'LogGOPSim (measured in this run): whole process (min..max bars)'"
    peer_title="LogGOPSim measured in this run, interleaved with choreo on the same GOAL files"
  else
    peer_title="LogGOPSim not run (--no-loggopsim)"
  fi
  gnuplot <<EOF
set terminal pngcairo size 1600,900 font "Sans,12"
set output "$png"
set multiplot layout 1,2 title "choreo sim vs LogGOPSim: recursive-doubling allreduce (8 B) and binomial bcast (8 B), LogGOPS ideal network, medians of $reps run(s)\n$peer_title\n$machine; $run_date" font "Sans,13"
set grid
set key below Left reverse maxrows 5 spacing 1.1 font "Sans,11"
set bmargin 11
set tmargin 6
set xlabel "ranks"
set xtics ("2^{10}" 10, "2^{12}" 12, "2^{14}" 14, "2^{16}" 16, "2^{18}" 18, "2^{20}" 20)
set xrange [9.5:$max_log2.5]
set logscale y 10
set format y "10^{%L}"

set title "simulation speed (events = ops + message arrivals)"
set ylabel "events per second"
plot "$tmp/allreduce.dat" using 1:2 with linespoints lw 2 lc rgb '#1f77b4' pt 7 ps 1.3 title "choreo allreduce, in memory: event loop", \
     "$tmp/goal.dat" using 1:2 with linespoints lw 2 lc rgb '#2ca02c' pt 9 ps 1.6 title "choreo allreduce, GOAL file: event loop", \
     "$tmp/goal.dat" using 1:4 with linespoints lw 2 lc rgb '#2ca02c' dt 3 pt 8 ps 1.6 title "choreo allreduce, GOAL file: whole process (parse + validate + loop)", \
     "$tmp/bcast.dat" using 1:2 with points lc rgb '#9467bd' pt 5 ps 1.8 title "choreo bcast, in memory: event loop"$lgs_ev

set title "time per run"
set ylabel "seconds"
set format y "%g"
plot "$tmp/allreduce.dat" using 1:3 with linespoints lw 2 lc rgb '#1f77b4' pt 7 ps 1.3 title "choreo allreduce, in memory: event loop", \
     "$tmp/goal.dat" using 1:3 with linespoints lw 2 lc rgb '#2ca02c' pt 9 ps 1.6 title "choreo allreduce, GOAL file: event loop", \
     "$tmp/goal.dat" using 1:5:6:7 with yerrorlines lw 2 lc rgb '#2ca02c' dt 3 pt 8 ps 1.6 title "choreo allreduce, GOAL file: whole process (min..max bars)", \
     "$tmp/goal.dat" using 1:8 with points lc rgb '#8c564b' pt 4 ps 1.6 title "choreo, GOAL file: parse + validate", \
     "$tmp/bcast.dat" using 1:3 with points lc rgb '#9467bd' pt 5 ps 1.8 title "choreo bcast, in memory: event loop"$lgs_t
unset multiplot
EOF
  say "wrote $png"
else
  say "gnuplot not found: no chart"
fi
say "wrote $csv and $runs_csv"
