#!/usr/bin/env bash
# The interposition library side by side with MPI_Alltoallv under SimGrid SMPI, on paper 000's
# cluster (64 nodes, one 1 GbE switch, 50 us links): the same unmodified OSU-style program
# (bench/osu_alltoallv.c) linked plain (osu_alltoallv) and with choreo's library archive before
# libsimgrid (osu_alltoallv_choreo), run one after the other on each pattern, size, network
# model (flow, ns-3) and MPI collective selector (mpich, ompi). The library runs with its
# defaults (CHOREO_MODE=auto, CHOREO_EXCHANGE=auto) and a profile calibrated under SMPI on
# the same platform (CHOREO_PROFILE). Then, on the scale-free patterns in the flow model, every
# schedule forced (CHOREO_MODE=choreo CHOREO_EXCHANGE=...), to see which wins where.
#
# Writes DIR/results.csv, DIR/tables.md, DIR/ratio.png and DIR/schedules.png; every run's
# output in DIR/runs/, its standard error in DIR/log/, the library's report in DIR/reports/.
set -euo pipefail
# The whole script is one block, read before it runs: editing the file during a run (hours
# under ns-3) cannot change what the run does.
{

usage() {
  cat <<'EOF'
usage: bench/intercept_smpi.sh [-o DIR] [--quick] [options]

  -o DIR            output directory (default out/intercept-smpi)
  --quick           flow: every pattern at 64512 B only; ns-3: gather and sf-1; schedules on
                    sf-1 (~15 min instead of hours)
  --settings S      network models, any of: flow ns3 (default both)
  --patterns P      patterns (default: scatter gather triangle sf-1 sf-2 sf-3 sf-4 sf-5)
  --sizes S         message sizes in the flow model (default: 1024 8192 32768 64512)
  --ns3-sizes S     message sizes in ns-3 (default: 64512)
  --selectors S     SMPI collective selectors (default: mpich ompi)
  --schedules S     schedules forced on the scale-free patterns in flow (default: direct ring
                    delay optimal optimal-paced; "" for none)
  --schedule-settings S  where to force them (default: flow)
  --build DIR       the build with the SMPI sub-build (default build/default)
  --tables-only     remake tables.md and the figures from DIR/results.csv
  -h, --help        this help

Needs `scripts/build default` (or cmake --build build/default --target choreo_cli choreo_smpi).
The flow model takes ~1-3 s per run; ns-3 1-10 min per run (it simulates every packet).
Rerun it as it is once the planner changes: every choreo figure comes from the library.
EOF
}

die() { echo "intercept_smpi.sh: $*" >&2; exit 1; }
say() { printf '== %s\n' "$*" >&2; }

cd "$(dirname "$0")/.."
# shellcheck source=bench/lib/switch64.sh
. bench/lib/switch64.sh

out=out/intercept-smpi
settings="flow ns3"
patterns="scatter gather triangle sf-1 sf-2 sf-3 sf-4 sf-5"
sizes="1024 8192 32768 64512"
ns3_sizes=64512
selectors="mpich ompi"
schedules="direct ring delay optimal optimal-paced"
schedule_settings=flow
build=build/default
quick=0
tables_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--settings|--patterns|--sizes|--ns3-sizes|--selectors|--schedules|--schedule-settings|--build)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)" ;;
  esac
  case "$1" in
    -o) out=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --settings) settings=$2; shift 2 ;;
    --patterns) patterns=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --ns3-sizes) ns3_sizes=$2; shift 2 ;;
    --selectors) selectors=$2; shift 2 ;;
    --schedules) schedules=$2; shift 2 ;;
    --schedule-settings) schedule_settings=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --tables-only) tables_only=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
for s in $settings $schedule_settings; do
  case $s in flow|ns3) ;; *) die "unknown setting '$s' (flow or ns3)" ;; esac
done
for s in $selectors; do
  case $s in mpich|ompi) ;; *) die "unknown selector '$s' (mpich or ompi)" ;; esac
done
for s in $sizes $ns3_sizes; do
  [[ $s =~ ^[0-9]+$ && $s -ge 1 ]] || die "size '$s' is not a whole number of bytes"
done
for s in $ns3_sizes; do
  [ "$s" -le 65536 ] || die "ns-3 size $s: at most 65536 (SimGrid 3.32's ns-3 binding aborts on 128 KiB messages)"
done
for s in $schedules; do
  case $s in direct|ring|delay|optimal|optimal-paced) ;;
    *) die "unknown schedule '$s' (direct ring delay optimal optimal-paced)" ;; esac
done
if [ $quick = 1 ]; then
  sizes=64512 ns3_sizes=64512
  ns3_patterns="gather sf-1" schedule_patterns=sf-1
else
  ns3_patterns=$patterns schedule_patterns=""
  for p in $patterns; do [[ $p == sf-* ]] && schedule_patterns="$schedule_patterns $p"; done
fi

csv=$out/results.csv

# ---- Tables and figures from results.csv ----------------------------------------------------

# Markdown: per setting and size, one row per pattern: the bound, then per selector MPI's
# median, choreo's and their ratio (MPI / choreo: above 1 choreo is faster), and what the
# library did (calls it took / calls). Then the forced schedules.
tables() {
  awk -F, '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    function v(name) { return $col[name] }
    function ms(us) { return us == "NA" ? "failed" : sprintf("%.2f", us / 1000) }
    {
      key = v("setting") SUBSEP v("bytes")
      if (v("exchange") == "default") {
        if (!(key in seen_key)) { seen_key[key] = 1; keys[++nkeys] = key }
        p = v("pattern")
        if (!((key, p) in seen_p)) { seen_p[key, p] = 1; pats[key, ++np[key]] = p }
        sel = v("selector")
        if (!(sel in seen_sel)) { seen_sel[sel] = 1; sels[++nsel] = sel }
        med[key, p, sel, v("program")] = v("median_us")
        spread[key, p, sel, v("program")] = v("min_us") "-" v("max_us")
        took[key, p, sel] = v("choreo_calls") "/" v("calls")
        bound[p, v("bytes")] = v("bound_us")
      } else {
        skey = v("setting") SUBSEP v("bytes") SUBSEP v("pattern") SUBSEP v("selector")
        if (!(skey in seen_s)) { seen_s[skey] = 1; srows[++ns] = skey }
        x = v("exchange")
        if (!(x in seen_x)) { seen_x[x] = 1; xs[++nx] = x }
        sched[skey, x] = v("median_us")
        sbound[skey] = v("bound_us")
      }
    }
    END {
      for (k = 1; k <= nkeys; ++k) {
        split(keys[k], sb, SUBSEP)
        printf "**%s, %s B per message** (ms per call: median of the timed calls, the slowest rank'"'"'s; ratio = MPI / choreo; choreo took = calls the library ran itself / all)\n\n", sb[1] == "ns3" ? "SMPI ns-3 TCP" : "SMPI flow model", sb[2]
        header = "| pattern | port bound |"; rule = "|---|---:|"
        for (s = 1; s <= nsel; ++s) {
          header = header sprintf(" MPI (%s) | choreo (%s) | ratio (%s) | MPI / bound | choreo took |", sels[s], sels[s], sels[s])
          rule = rule "---:|---:|---:|---:|---:|"
        }
        print header; print rule
        for (i = 1; i <= np[keys[k]]; ++i) {
          p = pats[keys[k], i]
          line = sprintf("| %s | %.2f |", p, bound[p, sb[2]] / 1000)
          for (s = 1; s <= nsel; ++s) {
            m = med[keys[k], p, sels[s], "mpi"]; c = med[keys[k], p, sels[s], "choreo"]
            if (m == "" && c == "") { line = line " | | | | |"; continue }
            r = (m != "NA" && c != "NA" && c > 0) ? m / c : 0
            mark = (r > 0 && r < 1 / 1.05) ? " (slower)" : (r >= 1.4 ? " **" : "")
            rtext = r > 0 ? sprintf("%.3f", r) : "-"
            if (mark == " **") rtext = "**" rtext "**"; else rtext = rtext mark
            line = line sprintf(" %s | %s | %s | %s | %s |", ms(m), ms(c), rtext,
              m != "NA" && bound[p, sb[2]] > 0 ? sprintf("%.2f", m / bound[p, sb[2]]) : "-",
              took[keys[k], p, sels[s]])
          }
          print line
        }
        print ""
      }
      if (ns == 0) exit
      printf "**Schedules forced** (CHOREO_MODE=choreo CHOREO_EXCHANGE=...; ms per call, median; best in bold; the last column is MPI_Alltoallv under the same selector)\n\n"
      header = "| setting | bytes | pattern | selector | port bound |"; rule = "|---|---:|---|---|---:|"
      for (j = 1; j <= nx; ++j) { header = header " " xs[j] " |"; rule = rule "---:|" }
      print header " MPI_Alltoallv |"; print rule "---:|"
      for (i = 1; i <= ns; ++i) {
        split(srows[i], f, SUBSEP)
        best = ""
        for (j = 1; j <= nx; ++j) {
          t = sched[srows[i], xs[j]]
          if (t != "" && t != "NA" && (best == "" || t + 0 < best + 0)) best = t
        }
        line = sprintf("| %s | %s | %s | %s | %.2f |", f[1], f[2], f[3], f[4], sbound[srows[i]] / 1000)
        for (j = 1; j <= nx; ++j) {
          t = sched[srows[i], xs[j]]
          cell = t == "" ? "" : ms(t)
          if (t != "" && t == best) cell = "**" cell "**"
          line = line " " cell " |"
        }
        m = med[f[1], f[2], f[3], f[4], "mpi"]
        print line " " (m == "" ? "" : ms(m)) " |"
      }
      print ""
    }' "$csv"
}

# bar_chart DATA PNG TITLE YLABEL BOUND [GNUPLOT...]: a clustered bar chart of DATA (a header
# line, then one line per x label: the label and one value per column). BOUND=bound draws the
# last column as a hatched black bar (a lower bound); the other arguments are gnuplot commands.
bar_chart() {
  local data=$1 png=$2 title=$3 ylabel=$4 bound=$5 columns plot=plot
  shift 5
  [ -s "$data" ] || return 0
  columns=$(head -1 "$data" | awk '{ print NF }')
  [ "$bound" = bound ] && columns=$((columns - 1))
  for column in $(seq 2 "$columns"); do
    plot="$plot '$data' using $column:xtic(1) title columnheader,"
  done
  if [ "$bound" = bound ]; then
    plot="$plot '' using $((columns + 1)) title columnheader lc rgb 'black' fill pattern 4,"
  fi
  {
    echo "set terminal pngcairo noenhanced size 900,420 font ',9'"
    echo "set output '$png'"
    echo "set title '$title'"
    echo "set style data histogram; set style histogram clustered gap 1; set style fill solid 0.8 border -1"
    echo "set key below horizontal; set ylabel '$ylabel'; set yrange [0:*]; set grid ytics"
    printf '%s\n' "$@"
    echo "${plot%,}"
  } | gnuplot
}

# Figures: the ratio MPI / choreo per pattern at 64512 B, one bar per setting and selector;
# and the forced schedules on the scale-free patterns (flow, first selector).
figures() {
  local data=$out/ratio.dat
  awk -F, '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $col["exchange"] == "default" && $col["bytes"] == 64512 {
      p = $col["pattern"]; s = $col["setting"] "/" $col["selector"]
      if (!(p in seen_p)) { seen_p[p] = 1; pats[++np] = p }
      if (!(s in seen_s)) { seen_s[s] = 1; ss[++ns] = s }
      t[p, s, $col["program"]] = $col["median_us"]
    }
    END {
      if (np == 0) exit
      line = "pattern"; for (j = 1; j <= ns; ++j) line = line " " ss[j]; print line
      for (i = 1; i <= np; ++i) {
        line = pats[i]
        for (j = 1; j <= ns; ++j) {
          m = t[pats[i], ss[j], "mpi"]; c = t[pats[i], ss[j], "choreo"]
          line = line " " ((m == "" || c == "" || m == "NA" || c == "NA") ? "NaN" : m / c)
        }
        print line
      }
    }' "$csv" > "$data"
  bar_chart "$data" "$out/ratio.png" \
    'MPI_Alltoallv time / the same call through choreo (osu_alltoallv, 64 nodes, 1 GbE switch, 63 KiB)' \
    'MPI / choreo (above 1: choreo faster)' none \
    "set arrow from graph 0, first 1.4 to graph 1, first 1.4 nohead dt 2 lc rgb 'dark-green'" \
    "set style textbox opaque noborder" \
    "set label 'target 1.4x (scale-free)' at graph 0.01, first 1.4 front boxed tc rgb 'dark-green'" \
    "set arrow from graph 0, first 1/1.05 to graph 1, first 1/1.05 nohead dt 3 lc rgb 'red'" \
    "set label '1/1.05' at graph 0.01, first 1/1.05 front boxed tc rgb 'red'"
  data=$out/schedules.dat
  local selector=${selectors%% *}
  awk -F, -v sel="$selector" '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $col["setting"] == "flow" && $col["bytes"] == 64512 && $col["pattern"] ~ /^sf-/ {
      if ($col["selector"] != sel) next
      p = $col["pattern"]; x = $col["exchange"]
      if (x == "default") x = ($col["program"] == "mpi" ? "MPI_Alltoallv" : "")
      if (x == "") next
      if (x != "MPI_Alltoallv") forced[p] = 1
      if (!(p in seen_p)) { seen_p[p] = 1; pats[++np] = p }
      if (!(x in seen_x)) { seen_x[x] = 1; xs[++nx] = x }
      t[p, x] = $col["median_us"] == "NA" ? "NaN" : $col["median_us"] / 1000; b[p] = $col["bound_us"] / 1000
    }
    END {
      if (nx < 2) exit
      line = "pattern"; for (j = 1; j <= nx; ++j) line = line " " xs[j]; print line " port-bound"
      for (i = 1; i <= np; ++i) {
        if (!(pats[i] in forced)) continue
        line = pats[i]
        for (j = 1; j <= nx; ++j) line = line " " (t[pats[i], xs[j]] == "" ? "NaN" : t[pats[i], xs[j]])
        print line " " b[pats[i]]
      }
    }' "$csv" > "$data"
  bar_chart "$data" "$out/schedules.png" \
    "Schedules forced through the library, SMPI flow model, 64 nodes, 63 KiB ($selector selector)" \
    'ms per call' bound
}

if [ $tables_only = 1 ]; then
  [ -s "$csv" ] || die "no $csv to make tables from"
  tables > "$out/tables.md"
  figures
  cat "$out/tables.md"
  exit 0
fi

# ---- Runs -------------------------------------------------------------------------------------

choreo=$build/tools/choreo
smpi_mpi=$build/smpi/tools/choreo-mpi
osu=$build/smpi/bench/osu_alltoallv
osu_choreo=$build/smpi/bench/osu_alltoallv_choreo
for tool in "$choreo" "$smpi_mpi" "$osu" "$osu_choreo"; do
  [ -x "$tool" ] || die "missing $tool: run scripts/build default"
done
command -v smpirun > /dev/null || die "smpirun not found: install SimGrid (scripts/install-deps)"

mkdir -p "$out/log" "$out/patterns" "$out/runs" "$out/reports"
switch_platforms "$choreo" "$out"
echo "setting,selector,pattern,bytes,program,exchange,iterations,warmup,avg_us,min_us,max_us,median_us,calls,choreo_calls,bound_us" > "$csv"
failures=0

# The profile CHOREO_PROFILE names: choreo-mpi calibrate on two nodes of the same platform and
# network model (ping-pong, bursts, exchange; up to 1 MiB in flow, 64 KiB in ns-3: SimGrid
# 3.32's ns-3 binding aborts on a 128 KiB message, "total_bytes (=131088) is not
# sent_bytes(=30000)"; the messages here are at most 64 KiB).
calibrate() {  # SETTING
  local profile=$out/profile-$1.json max_bytes=1048576
  [ "$1" = ns3 ] && max_bytes=65536
  smpi_launcher "$1" "$out"
  # The simulation is deterministic: a profile from an earlier run on DIR stays right.
  if [ -s "$profile" ]; then say "calibrated $1 before: $profile"; return; fi
  say "calibrating $1 -> $profile"
  "${smpi_launcher[@]}" --cfg=smpi/coll-selector:mpich -np 2 "$smpi_mpi" calibrate \
    --max-bytes $max_bytes --time-limit 60 -o "$profile" > "$out/log/calibrate-$1.txt" \
    2> "$out/log/calibrate-$1.log" || die "calibration failed (see $out/log/calibrate-$1.log)"
}

# run SETTING SELECTOR PATTERN BYTES PROGRAM EXCHANGE ITERATIONS WARMUP: one smpirun, one
# size (the library plans each new pattern at its next checkpoint: one size per run keeps the
# timed calls on the planned schedule), one CSV row.
run() {
  local setting=$1 selector=$2 name=$3 bytes=$4 program=$5 exchange=$6 iterations=$7 warmup=$8
  local tag=$setting-$selector-$name-$bytes-$program-$exchange binary=$osu env=()
  if [ "$program" = choreo ]; then
    binary=$osu_choreo
    env=(CHOREO_PROFILE="$out/profile-$setting.json" CHOREO_REPORT="$out/reports/$tag.json")
    [ "$exchange" != default ] && env+=(CHOREO_MODE=choreo CHOREO_EXCHANGE="$exchange")
  fi
  smpi_launcher "$setting" "$out"
  local pfile=$out/patterns/$name-64.json started=$SECONDS
  rm -f "$out/reports/$tag.json"
  env "${env[@]}" nice "${smpi_launcher[@]}" --cfg=smpi/coll-selector:"$selector" -np 64 \
    "$binary" --pattern "$pfile" -m "$bytes:$bytes" -i "$iterations" -x "$warmup" \
    > "$out/runs/$tag.txt" 2> "$out/log/$tag.log" || true
  # smpirun may exit 0 after a deadlock: the result is the data line or nothing.
  local line calls=NA took=NA
  line=$(awk -v b="$bytes" '$1 == b && NF >= 6 { print $2 "," $3 "," $4 "," $6 }' "$out/runs/$tag.txt")
  if [ -z "$line" ]; then
    line="NA,NA,NA,NA"
    failures=$((failures + 1))
    echo "   FAILED: $tag (see $out/log/$tag.log)" >&2
  fi
  if [ -s "$out/reports/$tag.json" ]; then
    calls=$(jq '.functions.MPI_Alltoallv.calls // 0' "$out/reports/$tag.json")
    took=$(jq '.functions.MPI_Alltoallv.choreo // 0' "$out/reports/$tag.json")
  fi
  local bound_us
  bound_us=$(awk -v s="$(port_lower_bound "$pfile")" -v b="$bytes" -v k="$paper_bytes" \
    'BEGIN { printf "%.3f", s * 1e6 * b / k }')
  echo "$setting,$selector,$name,$bytes,$program,$exchange,$iterations,$warmup,$line,$calls,$took,$bound_us" >> "$csv"
  printf '   %-4s %-5s %-8s %6s %-6s %-13s median %10s us  (%d s)\n' "$setting" "$selector" \
    "$name" "$bytes" "$program" "$exchange" "${line##*,}" $((SECONDS - started)) >&2
}

for name in $patterns; do paper_pattern "$choreo" "$name" 64 "$out/patterns" > /dev/null; done

for setting in $settings; do
  calibrate "$setting"
  if [ "$setting" = flow ]; then
    # Warm-up 4: the library times its ways to run a new pattern on calls 0-3 (one window
    # each: its plan, MPI's call, the plain exchange; docs/intercept.md) and runs the fastest
    # from call 4 on. MPI's runs get the same warm-up.
    these_sizes=$sizes these_patterns=$patterns iterations=10 warmup=4
    say "SMPI flow model, 64 nodes, 1 GbE switch: $these_patterns at $these_sizes B"
  else
    these_sizes=$ns3_sizes these_patterns=$ns3_patterns iterations=3 warmup=4
    say "SMPI ns-3 TCP model, 64 nodes, 1 GbE switch: $these_patterns at $these_sizes B"
  fi
  for name in $these_patterns; do
    for bytes in $these_sizes; do
      for selector in $selectors; do
        # Interleaved: MPI's call, then the library's, on the same pattern and settings.
        run "$setting" "$selector" "$name" "$bytes" mpi default $iterations $warmup
        run "$setting" "$selector" "$name" "$bytes" choreo default $iterations $warmup
      done
    done
  done
done

for setting in $schedule_settings; do
  [ -n "$schedules" ] || break
  [ -s "$out/profile-$setting.json" ] || calibrate "$setting"
  iterations=10 warmup=2
  [ "$setting" = ns3 ] && iterations=4 warmup=1
  say "forced schedules, $setting: $schedules on $schedule_patterns at $paper_bytes B"
  for name in $schedule_patterns; do
    for selector in $selectors; do
      for exchange in $schedules; do
        run "$setting" "$selector" "$name" "$paper_bytes" choreo "$exchange" $iterations $warmup
      done
    done
  done
done

tables > "$out/tables.md"
figures
cat "$out/tables.md"
echo "wrote $csv, $out/tables.md, $out/ratio.png and $out/schedules.png" >&2
[ $failures = 0 ] || die "$failures runs failed (their logs are listed above)"
exit
}
