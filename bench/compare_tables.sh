#!/usr/bin/env bash
# Turns bench/compare_irregular.sh's results.csv into Markdown tables (paper 000's Table 3
# and Fig. 6 as numbers) and a PNG chart of the scale-free patterns (Fig. 6).
# usage: bench/compare_tables.sh RESULTS_CSV OUT_DIR
set -euo pipefail
csv=$1
out=$2

# One table per rank count: rows (pattern, method) in the order they were run, one column
# per setting, times in ms (us for the real-MPI table), then the physical lower bound.
table() {  # TITLE UNIT SCALE SETTINGS...
  local title=$1 unit=$2 scale=$3
  shift 3
  awk -F, -v title="$title" -v unit="$unit" -v scale="$scale" -v settings="$*" '
    NR == 1 { next }
    {
      key = $2 SUBSEP $3
      if (!(key in seen)) { seen[key] = 1; order[++rows] = key }
      value[key, $1] = $4
      bound[$2] = $5
    }
    END {
      n = split(settings, s, " ")
      # The 1 GbE port bound means nothing for shared memory: shown for the 64-node cluster only.
      with_bound = unit != "us"
      printf "**%s** (median per iteration, %s%s)\n\n", title, unit,
        with_bound ? "; lower bound = largest bytes through one port / 1 Gbit/s" : ""
      header = "| pattern | method |" (with_bound ? " lower bound |" : "")
      rule = "|---|---|" (with_bound ? "---:|" : "")
      for (i = 1; i <= n; ++i) { header = header " " s[i] " |"; rule = rule "---:|" }
      print header; print rule
      for (r = 1; r <= rows; ++r) {
        split(order[r], pm, SUBSEP)
        line = sprintf("| %s | %s |", pm[1], pm[2])
        if (with_bound) line = line sprintf(" %.3f |", bound[pm[1]] * scale)
        shown = 0
        for (i = 1; i <= n; ++i) {
          v = value[order[r], s[i]]
          if (v == "") { line = line " |"; continue }
          shown = 1
          line = line (v == "NA" ? " failed |" : sprintf(" %.3f |", v * scale))
        }
        if (shown) print line
      }
      print ""
    }' "$csv"
}

{
  if grep -q '^real,' "$csv"; then table "Open MPI, 4 ranks on this machine" "us" 1e6 real; fi
  if grep -qE '^(flow|flow-noack|ns3|ns3-loss|sim-serial|sim-fair|sim-tcp),' "$csv"; then
    table "64 nodes on one 1 GbE switch: SMPI flow model (with and without TCP ACK cross-traffic), SMPI ns-3 TCP, choreo sim" "ms" 1e3 \
      flow flow-noack ns3 ns3-loss sim-serial sim-fair sim-tcp
  fi
} > "$out/tables.md"
cat "$out/tables.md"

# Fig. 6: the scale-free patterns, one panel per simulated setting.
panels=""
for setting in flow flow-noack ns3 ns3-loss sim-serial sim-fair sim-tcp; do
  data=$out/fig6-$setting.dat
  awk -F, -v setting=$setting '
    $1 == setting && $2 ~ /^sf-/ {
      method = $3; sub(/ \(ompi\)/, "", method)
      if ($3 ~ /\(mpich\)/) next
      if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
      v[$2, method] = ($4 == "NA" ? "NaN" : $4 * 1e3); lb[$2] = $5 * 1e3
    }
    END {
      if (n == 0) exit
      print "pattern ring delay optimal optimal-paced direct MPI_Alltoallv lower-bound"
      for (i = 1; i <= n; ++i) {
        p = order[i]; line = p
        split("ring delay optimal optimal-paced direct MPI_Alltoallv", m, " ")
        for (j = 1; j <= 6; ++j) line = line " " (v[p, m[j]] == "" ? "NaN" : v[p, m[j]])
        print line, lb[p]
      }
    }' "$csv" > "$data"
  [ -s "$data" ] && panels="$panels $setting"
done
[ -n "$panels" ] || exit 0
count=$(echo $panels | wc -w)
columns=$((count < 3 ? count : 3)) rows=$(((count + 2) / 3))  # small multiples, 3 a row
{
  echo "set terminal pngcairo noenhanced size $((460 * columns)),$((400 * rows)) font ',9'"
  echo "set output '$out/compare_sf.png'"
  echo "set multiplot layout $rows,$columns title 'Scale-free neighbour exchange, 64 nodes, 1 GbE switch, 63 KiB (paper 000 Fig. 6)'"
  echo "set style data histogram; set style histogram clustered gap 1; set style fill solid 0.8 border -1"
  echo "set key below horizontal maxrows 2 font ',8'; set ylabel 'ms per exchange'; set yrange [0:*]; set grid ytics"
  for setting in $panels; do
    case $setting in flow) t="SMPI flow model" ;; flow-noack) t="SMPI flow, no ACK traffic" ;;
      ns3) t="SMPI ns-3 TCP" ;; ns3-loss) t="SMPI ns-3 TCP, ports that drop" ;;
      sim-serial) t="choreo sim, serialized links" ;; sim-fair) t="choreo sim, fair sharing" ;;
      sim-tcp) t="choreo sim, lossy switch (TCP)" ;; esac
    echo "set title '$t'"
    # Only the methods this setting ran (choreo sim runs no MPI library).
    plot="plot"
    for column in 2 3 4 5 6 7; do
      if awk -v c=$column 'NR > 1 && $c != "NaN" { found = 1 } END { exit !found }' \
        "$out/fig6-$setting.dat"; then
        plot="$plot '$out/fig6-$setting.dat' using $column:xtic(1) title columnheader,"
      fi
    done
    echo "$plot '' using 8 title columnheader lc rgb 'black' fill pattern 4"
  done
  echo "unset multiplot"
} | gnuplot
echo "wrote $out/tables.md and $out/compare_sf.png" >&2
