#!/usr/bin/env bash
# Generated collectives stored once per rank shape (ShapedSchedule, `choreo sim
# --generate`'s default for allreduce:recdbl) against op by op (CompactSchedule,
# --compact-form), side by side in one run: for each rank count, interleaved rep after rep,
#   choreo sim --generate allreduce:recdbl:ranks=2^K:bytes=8 [--noise ...]
#   the same with --compact-form
# and medians (min..max) of the event loop, the build, the whole process and peak RSS (GNU
# time). Both forms must give the same makespan and event count, or the script says so.
# --big K then runs 2^K ranks in the shaped form alone (issue 19 item 4: 2^23 with noise).
set -euo pipefail
export LC_ALL=C

usage() {
  cat <<'EOF2'
usage: bench/sim_shaped.sh [-o DIR] [--reps N] [--log2 "16 18 20"] [--big K] [--quiet]
                           [--choreo PATH]

  -o, --output DIR   where to write sim_shaped.csv (one row per run) and sim_shaped.md
                     (default out/bench)
  --reps N           runs of each form per rank count (default 3)
  --log2 "K ..."     rank counts 2^K, 4 <= K <= 21, run in both forms (default "16 18 20";
                     2^21 needs ~7 GB in the compact form)
  --big K            also 2^K ranks, 4 <= K <= 24, shaped form only, once (2^23: ~10 GB)
  --quiet            no OS noise (default: --noise os:period=100us,duration=2us --noise
                     net:period=1ms,duration=1us --noise seed=1 on every run)
  --choreo PATH      choreo binary (default build/default/tools/choreo, built if missing)
  -h, --help         this help
Progress on stderr; the table on stdout.
EOF2
}

start_dir=$PWD
cd "$(dirname "$0")/.."
abspath() { if [[ $1 == /* ]]; then printf '%s' "$1"; else printf '%s/%s' "$start_dir" "$1"; fi; }
outdir=out/bench reps=3 log2s="16 18 20" big= choreo=build/default/tools/choreo
noise=(--noise os:period=100us,duration=2us --noise net:period=1ms,duration=1us --noise seed=1)
while (($#)); do
  case $1 in
    -o | --output) outdir=$(abspath "${2:?-o needs a directory}"); shift 2 ;;
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --log2) log2s=${2:?--log2 needs rank counts}; shift 2 ;;
    --big) big=${2:?--big needs K}; shift 2 ;;
    --quiet) noise=(); shift ;;
    --choreo) choreo=$(abspath "${2:?--choreo needs a path}"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "sim_shaped: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "sim_shaped: --reps must be a positive integer" >&2; exit 1; }
for k in $log2s; do
  [[ $k =~ ^[0-9]+$ ]] && ((k >= 4 && k <= 21)) ||
    { echo "sim_shaped: --log2 takes numbers in 4..21, not '$k'" >&2; exit 1; }
done
[[ -z $big ]] || { [[ $big =~ ^[0-9]+$ ]] && ((big >= 4 && big <= 24)); } ||
  { echo "sim_shaped: --big takes a number in 4..24, not '$big'" >&2; exit 1; }
say() { printf 'sim_shaped: %s\n' "$*" >&2; }
[[ -x $choreo ]] || { [[ $choreo == build/default/tools/choreo ]] && scripts/build default; } ||
  { echo "sim_shaped: $choreo is not an executable" >&2; exit 1; }
for tool in jq python3 /usr/bin/time; do
  command -v "$tool" >/dev/null ||
    { echo "sim_shaped: $tool is missing (apt-get install jq python3 time)" >&2; exit 1; }
done
mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=$outdir/sim_shaped.csv
echo "ranks,rep,form,wall_seconds,peak_rss_kib,loop_seconds,build_seconds,events,makespan_ns" >"$csv"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# run RANKS REP FORM [--compact-form]: one run under GNU time, appended to $csv.
run() {
  local ranks=$1 rep=$2 form=$3 t0 wall rss
  shift 3
  t0=$EPOCHREALTIME
  /usr/bin/time -f %M -o "$tmp/rss" "$choreo" --json sim \
    --generate "allreduce:recdbl:ranks=$ranks:bytes=8" ${noise[@]+"${noise[@]}"} "$@" \
    >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; say "the $form run at $ranks ranks failed"; exit 1; }
  wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.6f", b - a}')
  rss=$(tail -1 "$tmp/rss")
  echo "$ranks,$rep,$form,$wall,$rss,$(jq -r '"\(.sim_seconds),\(.build_seconds),\(.events),\(.makespan)"' "$tmp/out")" >>"$csv"
}

for k in $log2s; do
  for ((rep = 1; rep <= reps; rep++)); do
    say "2^$k ranks: rep $rep/$reps"
    run $((1 << k)) $rep shaped
    run $((1 << k)) $rep compact --compact-form
  done
done
if [[ -n $big ]]; then
  say "2^$big ranks, shaped form only"
  run $((1 << big)) 1 shaped
fi
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

cpu=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
python3 - "$csv" "$(hostname -s), ${cpu:-unknown CPU}, $(nproc) cores" "$(date '+%F %H:%M %Z')" \
  "$load_start" "$load_end" "${noise[*]:-none}" <<'PY' | tee "$outdir/sim_shaped.md"
import csv, statistics, sys
from collections import defaultdict

path, machine, when, load_start, load_end, noise = sys.argv[1:]
rows = defaultdict(list)  # (ranks, form) -> rows
for row in csv.DictReader(open(path)):
    rows[(int(row["ranks"]), row["form"])].append(row)

def spread(values, fmt="{:.2f}"):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}..{fmt.format(max(values))})"

print(f"choreo sim --generate allreduce:recdbl bytes=8: shaped (default) against --compact-form; {when}")
print(f"machine: {machine}; load average before {load_start}, after {load_end}; noise: {noise}")
print("medians (min..max); ratios within each rep, then their median.\n")
print("| ranks | events | form | loop s | events/s | build s | whole s | peak RSS | whole compact / shaped | RSS compact / shaped |")
print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
warnings = []
for ranks in sorted({r for r, _ in rows}):
    shaped, compact = rows[(ranks, "shaped")], rows.get((ranks, "compact"), [])
    for r in shaped + compact:
        if (r["events"], r["makespan_ns"]) != (shaped[0]["events"], shaped[0]["makespan_ns"]):
            warnings.append(f"{ranks} ranks, {r['form']} rep {r['rep']}: events {r['events']}, makespan {r['makespan_ns']}; shaped {shaped[0]['events']}, {shaped[0]['makespan_ns']}")
    events = int(shaped[0]["events"])
    for form, rs in (("shaped", shaped), ("compact", compact)):
        if not rs:
            continue
        col = lambda key: [float(r[key]) for r in rs]
        ratio = rss_ratio = ""
        if form == "compact":
            ratio = spread([float(c["wall_seconds"]) / float(s["wall_seconds"]) for s, c in zip(shaped, compact)]) + "x"
            rss_ratio = f"{max(float(c['peak_rss_kib']) for c in compact) / max(float(s['peak_rss_kib']) for s in shaped):.2f}x"
        print(f"| {ranks} | {events:,} | {form} | {spread(col('loop_seconds'))} | {spread([events / l / 1e6 for l in col('loop_seconds')], '{:.1f}')} M "
              f"| {spread(col('build_seconds'))} | {spread(col('wall_seconds'))} | {max(col('peak_rss_kib')) / 1048576:.2f} GiB | {ratio} | {rss_ratio} |")
for w in warnings:
    print("WARNING: the forms disagree:", w)
PY
