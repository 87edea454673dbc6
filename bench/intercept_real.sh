#!/usr/bin/env bash
# The interposition library's cost on real MPI on this machine: bench/osu_alltoallv (plain C,
# no choreo code) run without and with LD_PRELOAD=build/<preset>/src/libchoreo_pmpi.so, with
# MPICH on 2 ranks and Open MPI on 4 (oversubscribed: 2 cores), the runs interleaved (plain,
# library with CHOREO_MODE=auto, library with CHOREO_MODE=choreo, plain, ...) so that the
# machine's slow phases hit all alike. One node has no network to schedule: this measures what
# the library adds, not what it gains.
#
# Writes DIR/results.csv (every run and size), DIR/summary.csv and DIR/tables.md (median over
# the repetitions of each run's median call, the spread, and the ratio with/without the
# library), DIR/overhead.png; one run's CHOREO_REPORT per library and mode in DIR/reports/.
set -euo pipefail
# The whole script is one block, read before it runs: editing the file during a run (hours
# under ns-3) cannot change what the run does.
{

usage() {
  cat <<'EOF'
usage: bench/intercept_real.sh [-o DIR] [options]

  -o DIR          output directory (default out/intercept-real)
  --libraries L   any of: mpich openmpi (default both)
  --patterns P    osu_alltoallv's built-in patterns (default: alltoall triangle)
  --reps N        interleaved repetitions (default 5)
  --sizes MIN:MAX osu_alltoallv -m (default 1:65536, with 64512)
  -i N, -x N      timed and warm-up calls per size and run (default 200 and 100: MPICH's UCX
                  needs ~70 calls between two ranks to finish its wire-up)
  --modes M       CHOREO_MODE values to run with the library (default: auto choreo; mpi
                  is the library passing every call through)
  --tables-only   remake the summary, tables.md and the figure from DIR/results.csv
  -h, --help      this help

Needs `scripts/build default` (MPICH) and `scripts/build openmpi` (or their osu_alltoallv and
choreo_pmpi targets). Check `uptime` first: a loaded machine times the scheduler.
EOF
}

die() { echo "intercept_real.sh: $*" >&2; exit 1; }
say() { printf '== %s\n' "$*" >&2; }

cd "$(dirname "$0")/.."
out=out/intercept-real
libraries="mpich openmpi"
patterns="alltoall triangle"
reps=5
sizes=1:65536
iterations=200
warmup=100
modes="auto choreo"
tables_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--libraries|--patterns|--reps|--sizes|-i|-x|--modes)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)" ;;
  esac
  case "$1" in
    -o) out=$2; shift 2 ;;
    --libraries) libraries=$2; shift 2 ;;
    --patterns) patterns=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    -i) iterations=$2; shift 2 ;;
    -x) warmup=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --tables-only) tables_only=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps: give a whole number, at least 1"
[[ $iterations =~ ^[1-9][0-9]*$ ]] || die "-i: give a whole number, at least 1"
[[ $warmup =~ ^[0-9]+$ ]] || die "-x: give a whole number"
[[ $sizes =~ ^[0-9]+(:[0-9]+)?$ ]] || die "--sizes: use MIN:MAX in bytes"
for m in $modes; do
  case $m in auto|choreo|mpi) ;; *) die "unknown mode '$m' (auto, choreo or mpi)" ;; esac
done
for p in $patterns; do
  case $p in alltoall|triangle|gather|scatter) ;;
    *) die "unknown pattern '$p' (alltoall triangle gather scatter)" ;; esac
done

# launcher LIBRARY: sets `launcher`, `ranks`, `osu` and `pmpi` for that library's build.
launcher() {
  case $1 in
    mpich)
      ranks=2 osu=build/default/bench/osu_alltoallv pmpi=build/default/src/libchoreo_pmpi.so
      launcher=(mpiexec.mpich -n 2) ;;
    openmpi)
      ranks=4 osu=build/openmpi/bench/osu_alltoallv pmpi=build/openmpi/src/libchoreo_pmpi.so
      launcher=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        mpiexec.openmpi --oversubscribe -n 4) ;;
    *) die "unknown library '$1' (mpich or openmpi)" ;;
  esac
  [ -x "$osu" ] || die "missing $osu: run scripts/build $([ "$1" = mpich ] && echo default || echo openmpi)"
  [ -f "$pmpi" ] || die "missing $pmpi: run scripts/build $([ "$1" = mpich ] && echo default || echo openmpi)"
}
csv=$out/results.csv
if [ $tables_only = 1 ]; then
  if [ ! -s "$csv" ] || [ ! -s "$out/load.txt" ]; then
    die "no $csv and $out/load.txt to make tables from"
  fi
  read -r load_before load_after < <(sed 's/ /_/g; s/,/ /' "$out/load.txt")
  load_before=${load_before//_/ } load_after=${load_after//_/ }
  reps=$(awk -F, 'NR > 1 && $5 > r { r = $5 } END { print r }' "$csv")
  libraries=$(awk -F, 'NR > 1 && !seen[$1]++ { printf "%s ", $1 }' "$csv")
else
for library in $libraries; do launcher "$library"; done

mkdir -p "$out/runs" "$out/log" "$out/reports"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "load average before: $load_before (1, 5, 15 min) on $(nproc) CPUs"
echo "library,ranks,pattern,variant,rep,bytes,avg_us,min_us,max_us,median_us" > "$csv"

# run LIBRARY PATTERN VARIANT REP: one osu_alltoallv run over every size.
run() {
  local library=$1 name=$2 variant=$3 rep=$4 env=()
  launcher "$library"
  case $variant in
    mpi) ;;
    *) env=(LD_PRELOAD="$(realpath "$pmpi")" CHOREO_MODE="${variant#choreo-}") ;;
  esac
  local tag=$library-$name-$variant-$rep
  "${launcher[@]}" env "${env[@]}" "$osu" --pattern "$name" -m "$sizes" -i "$iterations" \
    -x "$warmup" > "$out/runs/$tag.txt" 2> "$out/log/$tag.log" ||
    die "$tag failed (see $out/log/$tag.log)"
  awk -v pre="$library,$ranks,$name,$variant,$rep" '!/^#/ && NF >= 6 {
    print pre "," $1 "," $2 "," $3 "," $4 "," $6 }' "$out/runs/$tag.txt" >> "$csv"
}

variants="mpi"
for m in $modes; do variants="$variants choreo-$m"; done
for library in $libraries; do
  for name in $patterns; do
    say "$library, $name: $reps x ($variants), -m $sizes -i $iterations -x $warmup"
    for rep in $(seq 1 "$reps"); do
      # Each repetition starts one variant later, so that no variant always runs first.
      read -r -a order <<< "$variants"
      for k in "${!order[@]}"; do
        run "$library" "$name" "${order[(k + rep - 1) % ${#order[@]}]}" "$rep"
      done
      printf '   rep %d done (load %s)\n' "$rep" "$(cut -d' ' -f1 /proc/loadavg)" >&2
    done
    # What the library did (not timed: the report times every call).
    for m in $modes; do
      launcher "$library"
      "${launcher[@]}" env LD_PRELOAD="$(realpath "$pmpi")" CHOREO_MODE="$m" \
        CHOREO_REPORT="$out/reports/$library-$name-$m.json" "$osu" --pattern "$name" \
        -m "$sizes" -i "$iterations" -x "$warmup" > /dev/null 2> "$out/log/report-$library-$name-$m.log" ||
        die "the report run failed (see $out/log/report-$library-$name-$m.log)"
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
say "load average after: $load_after"
echo "$load_before,$load_after" > "$out/load.txt"
fi

# Per library, pattern, size: the median over repetitions of each run's median call, the
# spread of those (min-max), and the ratio with the library / without: the median over the
# repetitions of the ratio of each run to the run without the library of the same repetition
# (paired: the machine's slow phases, minutes long, cancel out), with its min-max.
# spread of those (min-max), and the ratio with the library / without.
summary=$out/summary.csv
awk -F, '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; ++i) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; --j) {
      t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  NR == 1 { next }
  {
    key = $1 SUBSEP $2 SUBSEP $3 SUBSEP $6
    if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
    if (!($4 in seen_v)) { seen_v[$4] = 1; if ($4 != "mpi") vs[++nv] = $4 }
    list[key, $4] = list[key, $4] " " $10
    at[key, $4, $5] = $10 + 0; reps[$5] = 1
    lo[key, $4] = (lo[key, $4] == "" || $10 + 0 < lo[key, $4]) ? $10 + 0 : lo[key, $4]
    hi[key, $4] = (hi[key, $4] == "" || $10 + 0 > hi[key, $4]) ? $10 + 0 : hi[key, $4]
  }
  END {
    vs[0] = "mpi"
    line = "library,ranks,pattern,bytes"
    for (j = 0; j <= nv; ++j)
      line = line "," vs[j] "_us," vs[j] "_lo_us," vs[j] "_hi_us" (j > 0 ? "," vs[j] "_ratio," vs[j] "_ratio_lo," vs[j] "_ratio_hi" : "")
    print line
    for (i = 1; i <= n; ++i) {
      split(keys[i], k, SUBSEP)
      line = k[1] "," k[2] "," k[3] "," k[4]
      for (j = 0; j <= nv; ++j) {
        m = median(list[keys[i], vs[j]])
        line = line sprintf(",%.2f,%.2f,%.2f", m, lo[keys[i], vs[j]], hi[keys[i], vs[j]])
        if (j == 0) continue
        ratios = ""; rlo = ""; rhi = ""
        for (r in reps) {
          b = at[keys[i], "mpi", r]; c = at[keys[i], vs[j], r]
          if (b <= 0 || c <= 0) continue
          ratios = ratios " " c / b
          if (rlo == "" || c / b < rlo) rlo = c / b
          if (rhi == "" || c / b > rhi) rhi = c / b
        }
        line = line sprintf(",%.3f,%.3f,%.3f", median(ratios), rlo, rhi)
      }
      print line
    }
  }' "$csv" > "$summary"

# Markdown: one table per library and pattern.
{
  printf 'Load average before %s, after %s (1, 5, 15 min; %s CPUs). Times: median over %s interleaved runs of each run'"'"'s median call (the slowest rank'"'"'s), µs, [min-max over the runs]. Ratio: with the library / without, median over the runs of each run against the run without the library of the same repetition [min-max] (above 1: slower; bold above 1.05).\n\n' \
    "$load_before" "$load_after" "$(nproc)" "$reps"
  awk -F, '
    NR == 1 {
      for (i = 1; i <= NF; ++i) {
        col[$i] = i
        if ($i ~ /_ratio$/) { v = $i; sub(/_ratio$/, "", v); vs[++nv] = v }
      }
      next
    }
    {
      t = $1 SUBSEP $2 SUBSEP $3
      if (t != last) {
        if (last != "") print ""
        last = t
        printf "**%s, %s ranks, %s**\n\n", $1 == "mpich" ? "MPICH" : "Open MPI", $2, $3
        line = "| bytes | without |"; rule = "|---:|---:|"
        for (a = 1; a <= nv; ++a) { line = line " " vs[a] " | ratio |"; rule = rule "---:|---:|" }
        print line; print rule
      }
      line = sprintf("| %s | %.2f [%.2f-%.2f] |", $4, $col["mpi_us"], $col["mpi_lo_us"], $col["mpi_hi_us"])
      for (a = 1; a <= nv; ++a) {
        r = $col[vs[a] "_ratio"]
        rt = sprintf("%.3f", r); if (r > 1.05) rt = "**" rt "**"
        rt = rt sprintf(" [%.2f-%.2f]", $col[vs[a] "_ratio_lo"], $col[vs[a] "_ratio_hi"])
        line = line sprintf(" %.2f [%.2f-%.2f] | %s |", $col[vs[a] "_us"], $col[vs[a] "_lo_us"], $col[vs[a] "_hi_us"], rt)
      }
      print line
    }
    END { print "" }' "$summary"
  for report in "$out"/reports/*.json; do
    [ -s "$report" ] || continue
    jq -r --arg f "$(basename "$report" .json)" '.functions.MPI_Alltoallv as $a |
      "- \($f): MPI_Alltoallv \($a.calls) calls, choreo \($a.choreo), handed to MPI \($a.fallback) \($a.fallback_reasons | tostring), plans \($a.plans)"' "$report"
  done
} > "$out/tables.md"

# Figure: ratio with/without against size, one panel per library, one line per pattern and mode.
panels=""
for library in $libraries; do
  data=$out/overhead-$library.dat
  awk -F, -v lib="$library" '
    NR == 1 { for (i = 1; i <= NF; ++i) if ($i ~ /_ratio$/) ratio[++nr] = i; split($0, names, ","); next }
    $1 == lib {
      for (k = 1; k <= nr; ++k) {
        v = names[ratio[k]]; sub(/_ratio$/, "", v); sub(/^choreo-/, "CHOREO_MODE=", v)
        series = $3 ", " v
        if (!(series in points)) order[++n] = series
        points[series] = points[series] $4 " " $ratio[k] "\n"
      }
    }
    END { for (i = 1; i <= n; ++i) printf "\"%s\"\n%s\n\n", order[i], points[order[i]] }' \
    "$summary" > "$data"
  [ -s "$data" ] && panels="$panels $library"
done
count=$(echo "$panels" | wc -w)
{
  echo "set terminal pngcairo noenhanced size $((520 * count)),480 font ',9'"
  echo "set output '$out/overhead.png'"
  echo "set multiplot layout 1,$count title 'osu_alltoallv with libchoreo_pmpi.so / without on this machine (median of $reps paired runs)'"
  echo "set logscale x 2; set xlabel 'bytes per message'; set ylabel 'time with / without the library'"
  echo "set grid; set key top left font ',8'; set yrange [*<0.6:1.6<*]; set format x '%.0b %BB'"
  echo "set arrow from graph 0, first 1.05 to graph 1, first 1.05 nohead dt 2 lc rgb 'red'"
  echo "set label '1.05' at graph 0.93, first 1.07 tc rgb 'red'"
  for library in $panels; do
    data=$out/overhead-$library.dat
    blocks=$(grep -c '^"' "$data")
    case $library in mpich) echo "set title 'MPICH 4.0, 2 ranks'" ;;
      openmpi) echo "set title 'Open MPI 4.1, 4 ranks on 2 cores'" ;; esac
    echo "plot for [i=0:$((blocks - 1))] '$data' index i using 1:2 with linespoints title columnheader(1)"
  done
  echo "unset multiplot"
} | gnuplot
cat "$out/tables.md"
echo "wrote $csv, $summary, $out/tables.md and $out/overhead.png" >&2
exit
}
