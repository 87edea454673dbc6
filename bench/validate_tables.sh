#!/usr/bin/env bash
# Turns bench/validate_model.sh's results.csv into Markdown tables (predicted/measured per
# algorithm and size, with and without collisions; measured and predicted crossovers) and
# gnuplot figures like paper 001's: DIR/ratio-SETTING-TOPOLOGY.png (Figs. 4-5) and
# DIR/times-SETTING-TOPOLOGY.png (Figs. 6-7).
# usage: bench/validate_tables.sh RESULTS_CSV OUT_DIR
set -euo pipefail
csv=$1
out=$2

cases=$(awk -F, 'NR > 1 && !seen[$1 FS $2]++ { print $1 "," $2 }' "$csv")

{
  # The headline: predicted/measured over the sizes the targets speak of (>= 64 KiB).
  echo "**Summary**: predicted/measured at >= 64 KiB per rank, min-max, with collisions (without)"
  echo
  echo "| setting | topology | algorithm | sizes | with collisions | without |"
  echo "|---|---|---|---:|---:|---:|"
  awk -F, 'NR > 1 && $4 >= 65536 && $5 != "NA" && $6 != "NA" && $5 > 0 {
      k = $1 "|" $2 "|" $3
      if (!(k in n)) { order[++keys] = k; lo[k] = hi[k] = $6 / $5; nlo[k] = nhi[k] = $7 / $5 }
      r = $6 / $5; q = $7 / $5; ++n[k]
      if (r < lo[k]) lo[k] = r; if (r > hi[k]) hi[k] = r
      if (q < nlo[k]) nlo[k] = q; if (q > nhi[k]) nhi[k] = q
    }
    END {
      for (i = 1; i <= keys; ++i) {
        k = order[i]; split(k, f, "|")
        printf "| %s | %s | %s | %d | %.2f-%.2f | %.2f-%.2f |\n", f[1], f[2], f[3], n[k], lo[k], hi[k], nlo[k], nhi[k]
      }
    }' "$csv"
  echo
  for c in $cases; do
    setting=${c%,*} topo=${c#*,}
    awk -F, -v setting="$setting" -v topo="$topo" '
      $1 == setting && $2 == topo {
        if (!($3 in has)) { has[$3] = 1; algos[++na] = $3 }
        if (!($4 in hs)) { hs[$4] = 1; sizes[++ns] = $4 }
        m[$3, $4] = $5; p[$3, $4] = $6; q[$3, $4] = $7
      }
      function ratio(x, y) { return (x == "NA" || y == "NA" || y == 0) ? "-" : sprintf("%.2f", x / y) }
      function us(x) { return x == "NA" ? "-" : sprintf("%.1f", x * 1e6) }
      # The fastest algorithm at size s by measured (w = 5) or predicted (w = 6) time.
      function winner(s, w,    a, best, t, b) {
        best = ""
        for (a = 1; a <= na; ++a) {
          t = (w == 5 ? m[algos[a], s] : w == 6 ? p[algos[a], s] : q[algos[a], s])
          if (t == "NA" || t == "") continue
          if (best == "" || t + 0 < b) { best = algos[a]; b = t + 0 }
        }
        return best
      }
      function crossovers(w,    i, prev, cur, text) {
        text = ""; prev = winner(sizes[1], w)
        for (i = 2; i <= ns; ++i) {
          cur = winner(sizes[i], w)
          if (cur != prev) text = text sprintf("%s%s -> %s between %s and %s B", text == "" ? "" : "; ", prev, cur, sizes[i - 1], sizes[i])
          prev = cur
        }
        return text == "" ? "none (" prev " throughout)" : text
      }
      END {
        printf "**%s, %s**: measured time (us) and predicted/measured with collisions (without)\n\n", setting, topo
        header = "| bytes |"; rule = "|---:|"
        for (a = 1; a <= na; ++a) { header = header " " algos[a] " us | ratio |"; rule = rule "---:|---:|" }
        print header; print rule
        for (i = 1; i <= ns; ++i) {
          s = sizes[i]; line = "| " s " |"
          for (a = 1; a <= na; ++a)
            line = line sprintf(" %s | %s (%s) |", us(m[algos[a], s]), ratio(p[algos[a], s], m[algos[a], s]), ratio(q[algos[a], s], m[algos[a], s]))
          print line
        }
        print ""
        printf "Crossovers: measured %s; predicted with collisions %s; without %s.\n\n", crossovers(5), crossovers(6), crossovers(7)
      }' "$csv"
  done
} > "$out/tables.md"
cat "$out/tables.md"

for c in $cases; do
  setting=${c%,*} topo=${c#*,} base=$out/$setting-$topo
  awk -F, -v setting="$setting" -v topo="$topo" '$1 == setting && $2 == topo' "$csv" > "$base.dat"
  algos=$(cut -d, -f3 "$base.dat" | awk '!seen[$0]++')
  ratio_plot="" times_plot="" color=0
  for a in $algos; do
    color=$((color + 1))
    # One data file per algorithm, without failed runs: gnuplot needs no quoting games then.
    dat=$base-$a.dat
    awk -F, -v a="$a" '$3 == a && $5 != "NA" && $6 != "NA"' "$base.dat" > "$dat"
    ratio_plot="$ratio_plot '$dat' using 4:(\$6/\$5) with linespoints lc $color title '$a, collisions',"
    ratio_plot="$ratio_plot '$dat' using 4:(\$7/\$5) with linespoints lc $color dt 2 title '$a, no collisions',"
    times_plot="$times_plot '$dat' using 4:(\$5*1e6) with linespoints lc $color title '$a measured',"
    times_plot="$times_plot '$dat' using 4:(\$6*1e6) with linespoints lc $color dt 2 title '$a predicted',"
  done
  gnuplot <<EOF
set terminal pngcairo noenhanced size 800,480 font ',10'
set datafile separator ','
set logscale x 2
set xtics ('1 B' 1, '16 B' 16, '256 B' 256, '4 KiB' 4096, '64 KiB' 65536, '1 MiB' 1048576, '16 MiB' 16777216, '256 MiB' 268435456)
set grid
set key outside right
set xlabel 'bytes per rank'
set output '$out/ratio-$setting-$topo.png'
set title 'allgather, $setting, $topo: predicted / measured (paper 001 Figs. 4-5)'
set ylabel 'predicted / measured'
set yrange [0:2<*]  # 0 to 2, further when a ratio is above 2: nothing clipped
plot ${ratio_plot%,}, 1 notitle lc rgb 'black'
set output '$out/times-$setting-$topo.png'
set title 'allgather, $setting, $topo: measured and predicted (paper 001 Figs. 6-7)'
set ylabel 'microseconds'
set logscale y 10
set yrange [*:*]
plot ${times_plot%,}
EOF
done
echo "wrote $out/tables.md and $out/ratio-*.png, $out/times-*.png" >&2
