#!/usr/bin/env bash
# Persistent broadcast benchmark (docs/persistent.md): MPICH on 2 ranks and, with
# --ompi-build, Open MPI on 4 ranks (oversubscribed); CSV per library and gnuplot figures
# like paper 003's Figs. 11-15 (total time, bandwidth, start cost, init cost) plus overlap.
#   bench/persist_bench.sh --build build/default [--ompi-build build/openmpi]
#                          [--max-bytes 4194304] [--out out/persist] [--figures docs/figures]
#                          [--plot-only]   (figures and summary from an earlier run's CSVs)
# MPICH with 4 ranks on a 2-core machine busy-polls in every rank and measures the OS
# scheduler, hence 2 ranks there.
set -euo pipefail
build=build/default ompi_build="" max_bytes=4194304 out=out/persist figures=docs/figures
plot_only=false
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --ompi-build) ompi_build=$2; shift 2 ;;
    --max-bytes) max_bytes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --figures) figures=$2; shift 2 ;;
    --plot-only) plot_only=true; shift ;;
    *) echo "persist_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out" "$figures"

run() {  # library build-dir mpiexec [flags...]
  local library=$1 build_dir=$2
  shift 2
  $plot_only && return 0
  echo "== $library: $* $build_dir/bench/persist_bench --max-bytes $max_bytes"
  "$@" "$build_dir/bench/persist_bench" --max-bytes "$max_bytes" --csv "$out/$library.csv"
}
run mpich "$build" mpiexec.mpich -n 2
libraries=(mpich)
if [[ -n $ompi_build ]]; then
  run openmpi "$ompi_build" mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4
  libraries+=(openmpi)
fi

# Figures: small multiples, one panel per choreo algorithm with its engines in colour and the
# library's calls (MPI_Bcast, MPI_Ibcast, the persistent MPI_Bcast_init) as the same dashed
# references in every panel, so twelve series never share one legend; ticks in KiB/MiB and
# us/ms; nothing clipped (the overlap axes reach down to the lowest share measured).
# One data file per implementation: bytes init start total bandwidth hidden hidden-with-sleep
# and the total's first and third quartiles (nan in CSVs from before they were kept).
size_tick() {  # BYTES -> "1 KiB"
  local b=$1 units=(B KiB MiB GiB) u=0
  while (( b >= 1024 && b % 1024 == 0 && u < 3 )); do b=$((b / 1024)); u=$((u + 1)); done
  echo "$b ${units[$u]}"
}
xtics_for() {  # CSV -> gnuplot xtics list at powers of 4 (or 16, 64) within the sizes
  local low high b list=""
  low=$(awk -F, 'NR > 1 { print $2 }' "$1" | sort -n | head -1)
  high=$(awk -F, 'NR > 1 { print $2 }' "$1" | sort -n | tail -1)
  # At most about 8 ticks: every 4x, or every 16x or 64x over a wide range.
  local step=4
  while (( low * step ** 8 < high )); do step=$((step * 4)); done
  for ((b = 1; b < low; b *= 4)); do :; done  # the first power of 4 from the smallest size
  for (( ; b <= high; b *= step)); do list+="\"$(size_tick $b)\" $b, "; done
  echo "${list%, }"
}
time_tics() {  # MIN MAX (us) -> gnuplot ytics list at decades, labelled in us/ms/s
  awk -v lo="$1" -v hi="$2" 'BEGIN {
    for (t = 10 ^ int(log(lo) / log(10) - (lo < 1)); t <= hi * 10; t *= 10) {
      label = t < 1000 ? sprintf("%g us", t) : t < 1e6 ? sprintf("%g ms", t / 1000) : sprintf("%g s", t / 1e6)
      list = list sprintf("%s\"%s\" %g", list == "" ? "" : ", ", label, t) }
    print list }'
}
for library in "${libraries[@]}"; do
  csv=$out/$library.csv
  rm -f "$out/$library".*.dat
  awk -F, -v prefix="$out/$library" 'NR > 1 {
      file = prefix "." $3 ".dat"; gsub(":", "_", file)
      print $2, $4, $5, $6, $7, $10, $12, ($13 == "" ? "nan" : $13), ($14 == "" ? "nan" : $14) > file }' "$csv"
  ranks=$(awk -F, 'NR == 2 { print $1 }' "$csv")
  case $library in
    mpich) who="MPICH 4.0.2, $ranks ranks" ;;
    openmpi) who="Open MPI 4.1.4, $ranks ranks (--oversubscribe)" ;;
    *) who="$library, $ranks ranks" ;;
  esac
  machine="$(nproc) cores, $(hostname)"
  # The choreo algorithms (choreo:ALGORITHM:ENGINE) and the library's own calls.
  algorithms=$(awk -F, 'NR > 1 && $3 ~ /^choreo:/ { split($3, p, ":"); if (!(p[2] in s)) { s[p[2]] = 1; print p[2] } }' "$csv")
  xtics=$(xtics_for "$csv")
  plot() {  # name column ylabel time|log|linear [title note]
    local name=$1 column=$2 ylabel=$3 scale=$4 note=${5:-} panels=0 layout script lo hi
    panels=$(echo "$algorithms" | wc -w)
    # One y range for every panel, from the data (the CSV columns behind .dat columns 2..7).
    local csv_column=$(( (column == 2 ? 4 : column == 3 ? 5 : column == 4 ? 6 : column == 5 ? 7 : column == 6 ? 10 : 12) ))
    lo=$(awk -F, -v c=$csv_column -v s="$scale" 'NR > 1 && ($c > 0 || s == "linear") { print $c }' "$csv" | sort -g | head -1)
    hi=$(awk -F, -v c=$csv_column 'NR > 1 { print $c }' "$csv" | sort -g | tail -1)
    script="set terminal pngcairo size $((360 * panels + 80)),520 noenhanced font 'sans,10'
set output '$figures/persist_${library}_${name}.png'
set multiplot layout 1,$panels title \"persistent broadcast: $ylabel$note\\n$who on this machine ($machine)\"
set logscale x 2
set xtics ($xtics) rotate by -45
set grid
set key top left font ',9'
set xlabel 'message size'
"
    if [[ $scale == time ]]; then
      script+="set logscale y
set yrange [$lo/1.5:$hi*1.5]
set ytics ($(time_tics "$lo" "$hi"))
"
    elif [[ $scale == log ]]; then
      script+="set logscale y
set yrange [$lo/1.5:$hi*1.5]
"
    else
      script+="set key bottom right
set yrange [$(awk -v v="$lo" 'BEGIN { print (v < -100 ? v * 1.05 : -105) }'):105]
"
    fi
    local first=1
    for algorithm in $algorithms; do
      local lines="" colour
      for engine in commands inline thread; do
        local f="$out/$library.choreo_${algorithm}_${engine}.dat"
        [[ -f $f ]] || continue
        case $engine in commands) colour='#0072B2' ;; inline) colour='#D55E00' ;; *) colour='#009E73' ;; esac
        # The total time's spread: the repetitions' quartiles as a pale band under the line.
        [[ $name == total ]] &&
          lines+="'$f' using 1:8:9 with filledcurves fs transparent solid 0.2 noborder lc rgb '$colour' notitle, "
        lines+="'$f' using 1:$column with linespoints pt 7 ps 0.5 lw 1.5 lc rgb '$colour' title '$engine', "
      done
      for f in "$out/$library".mpi*.dat; do
        [[ -f $f ]] || continue
        local call=${f#"$out/$library."} dash
        call=${call%.dat}
        case $call in *init*) dash=1 ;; *Ibcast*) dash=3 ;; *) dash=2 ;; esac
        lines+="'$f' using 1:$column with lines dt $dash lw 1.2 lc rgb '#555555' title '${call//_/:}', "
      done
      script+="set title '$algorithm'
set ylabel '$( ((first)) && echo "$ylabel" || true)'
plot ${lines%, }
"
      first=0
    done
    script+="unset multiplot
"
    gnuplot <<< "$script"
  }
  plot total 4 "total time start..wait" time " (bands: quartiles of the repetitions)"
  plot bandwidth 5 "bandwidth (MiB/s)" log
  plot start 3 "start cost" time
  plot init 2 "init cost" time
  plot overlap 6 "communication hidden, compute spinning (%)" linear
  plot overlap_sleep 7 "communication hidden, compute sleeping (%)" linear
  echo "figures: $figures/persist_${library}_{total,bandwidth,start,init,overlap,overlap_sleep}.png"

  # The ratio the issue asks for: choreo's fastest total against the library's persistent
  # broadcast (MPI_Bcast_init, or Open MPI's MPIX_Bcast_init), else MPI_Bcast; and the best
  # hidden share of the thread engine.
  echo "== $library: choreo's best against the library's persistent broadcast"
  awk -F, 'NR > 1 {
      if ($3 ~ /^choreo/ && (!($2 in best) || $6 < best[$2])) { best[$2] = $6; who[$2] = $3 }
      if ($3 ~ /Bcast_init$/) ref[$2] = $6
      if ($3 == "mpi:Bcast" && !($2 in ref)) ref[$2] = $6
      if ($3 ~ /:thread$/) { if (!($2 in spin) || $10 > spin[$2]) spin[$2] = $10
                             if (!($2 in slp) || $12 > slp[$2]) slp[$2] = $12 }
      if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
    END { printf "%10s %12s %12s %6s  %-30s %8s %8s\n", "bytes", "persistent us", "choreo us",
            "ratio", "fastest choreo", "thread hidden", "(sleep)"
          for (i = 1; i <= n; ++i) { b = order[i]
            printf "%10d %12.1f %12.1f %6.2f  %-30s %7.1f%% %7.1f%%\n", b, ref[b], best[b],
              best[b] / ref[b], who[b], spin[b], slp[b] } }' "$out/$library.csv"
done
