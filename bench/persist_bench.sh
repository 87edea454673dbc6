#!/usr/bin/env bash
# Persistent broadcast benchmark (docs/persistent.md): MPICH on 2 ranks and, with
# --ompi-build, Open MPI on 4 ranks (oversubscribed); CSV per library and gnuplot figures
# like paper 003's Figs. 11-15 (total time, bandwidth, start cost, init cost) plus overlap.
#   bench/persist_bench.sh --build build/default [--ompi-build build/openmpi]
#                          [--max-bytes 4194304] [--out out/persist] [--figures docs/figures]
# MPICH with 4 ranks on a 2-core machine busy-polls in every rank and measures the OS
# scheduler, hence 2 ranks there.
set -euo pipefail
build=build/default ompi_build="" max_bytes=4194304 out=out/persist figures=docs/figures
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --ompi-build) ompi_build=$2; shift 2 ;;
    --max-bytes) max_bytes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --figures) figures=$2; shift 2 ;;
    *) echo "persist_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out" "$figures"

run() {  # library build-dir mpiexec [flags...]
  local library=$1 build_dir=$2
  shift 2
  echo "== $library: $* $build_dir/bench/persist_bench --max-bytes $max_bytes"
  "$@" "$build_dir/bench/persist_bench" --max-bytes "$max_bytes" --csv "$out/$library.csv"
}
run mpich "$build" mpiexec.mpich -n 2
libraries=(mpich)
if [[ -n $ompi_build ]]; then
  run openmpi "$ompi_build" mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4
  libraries+=(openmpi)
fi

# One data file per implementation: bytes init start total bandwidth hidden.
for library in "${libraries[@]}"; do
  rm -f "$out/$library".*.dat
  awk -F, -v prefix="$out/$library" 'NR > 1 {
      file = prefix "." $3 ".dat"; gsub(":", "_", file)
      print $2, $4, $5, $6, $7, $10 > file }' "$out/$library.csv"
  plot() {  # name column ylabel logy
    local name=$1 column=$2 ylabel=$3 logy=$4 files=() lines=""
    for f in "$out/$library".*.dat; do files+=("$f"); done
    for f in "${files[@]}"; do
      local title=${f#"$out/$library."}
      title=${title%.dat}
      lines+="'$f' using 1:$column with linespoints title '${title//_/:}', "
    done
    gnuplot <<GNUPLOT
set terminal pngcairo size 1000,650 font ",10"
set output "$figures/persist_${library}_${name}.png"
set logscale x 2
$( [[ $logy == 1 ]] && echo "set logscale y" )
set xlabel "message size (bytes)"
set ylabel "$ylabel"
set key outside right
set grid
set title "persistent broadcast, $library ($(head -2 "$out/$library.csv" | tail -1 | cut -d, -f1) ranks)"
plot ${lines%, }
GNUPLOT
  }
  plot total 4 "total time start..wait (us)" 1
  plot bandwidth 5 "bandwidth (MiB/s)" 1
  plot start 3 "start cost (us)" 1
  plot init 2 "init cost (us)" 1
  plot overlap 6 "communication hidden (%)" 0
  echo "figures: $figures/persist_${library}_{total,bandwidth,start,init,overlap}.png"
done
