#!/usr/bin/env bash
# MPI-4's persistent collectives through libchoreo_pmpi.so against the MPI library's own, the
# nonblocking and the blocking collective (persistent_mpi4_bench.c), 2 ranks, under MPICH and
# Open MPI, with the default (CHOREO_PERSISTENT=auto) and with CHOREO_PERSISTENT=choreo: bcast,
# allreduce, reduce, gather, scatter, reduce_scatter (block), neighbor_alltoallv (on a periodic
# ring: on 2 ranks the libraries' own pair its blocks wrongly, and the default is choreo's) and
# barrier; one CSV per run in DIR,
# per run the drop-in's ratio to the library's persistent and to the nonblocking collective at
# each size, and with --figures FDIR the figure FDIR/persistent_mpi4.png: a panel per library
# and collective, every subject's median with the drop-in's quartiles (docs/BENCHMARKS.md).
set -euo pipefail
usage() {
  cat <<'USAGE'
usage: bench/persistent_mpi4_bench.sh [-o DIR] [--reps 300] [--mpich-build DIR] [--openmpi-build DIR]
                                      [--figures FDIR] [--plot-only]
Needs persistent_mpi4_bench in both builds (scripts/build default, scripts/build openmpi).
USAGE
}
cd "$(dirname "$0")/.."
out=out/persistent-mpi4
reps=300
mpich_build=build/default
ompi_build=build/openmpi
figures=""
plot_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --mpich-build) mpich_build=$2; shift 2 ;;
    --openmpi-build) ompi_build=$2; shift 2 ;;
    --figures) figures=$2; shift 2 ;;
    --plot-only) plot_only=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "persistent_mpi4_bench.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$plot_only" -eq 0 ]; then
for b in "$mpich_build" "$ompi_build"; do
  [ -x "$b/bench/persistent_mpi4_bench" ] || { echo "missing $b/bench/persistent_mpi4_bench" >&2; exit 1; }
done
mkdir -p "$out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for setting in auto choreo; do
  echo "== MPICH, 2 ranks, CHOREO_PERSISTENT=$setting" >&2
  mpiexec.mpich -n 2 env CHOREO_PERSISTENT=$setting "$mpich_build/bench/persistent_mpi4_bench" \
    "$reps" >"$out/mpich-$setting.csv"
  echo "== Open MPI, 2 ranks, CHOREO_PERSISTENT=$setting" >&2
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec.openmpi -n 2 \
    -x CHOREO_PERSISTENT=$setting "$ompi_build/bench/persistent_mpi4_bench" "$reps" \
    >"$out/openmpi-$setting.csv"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
fi
# The drop-in's rows: collective, bytes, its median (us), its ratio to the library's persistent
# collective and to the nonblocking one.
for f in "$out"/*.csv; do
  echo "# $(basename "$f" .csv)"
  awk -F, '$3 == "drop-in" { printf "%-10s %8s B  %9.2f us  /library %5.2f  /nonblocking %5.2f\n", $1, $2, $4 * 1e6, $7, $8 }' "$f"
done

[ -n "$figures" ] || exit 0
# The figure: a panel per library and collective (the barrier, one size, is in the text only);
# each subject's median over a baseline measured in the same run (each setting runs in a
# process of its own, and runs differ by more than the subjects within one): Open MPI's own
# persistent collective (MPIX_X_init), and for MPICH, whose own are wrong (docs/intercept.md),
# its nonblocking collective. Subjects: the drop-in under the default (auto) and under
# CHOREO_PERSISTENT=choreo, the other MPI forms; the default drop-in's quartiles as a band.
# One data file per library, setting, collective and subject: bytes ratio q1-ratio q3-ratio.
mkdir -p "$figures"
for f in "$out"/*.csv; do
  name=$(basename "$f" .csv)
  case $name in mpich-*) base=nonblocking ;; *) base=library ;; esac
  awk -F, -v prefix="$out/$name" -v base="$base" '$1 !~ /^#/ && $1 != "collective" {
      key = $1 "," $2; median[key, $3] = $4; q1[key, $3] = $5; q3[key, $3] = $6; keys[key] = 1 }
    END { for (key in keys) { split(key, k, ",")
      n = split("drop-in library nonblocking blocking", names, " ")
      for (i = 1; i <= n; ++i) { own = median[key, base]
        print k[2], median[key, names[i]] / own, q1[key, names[i]] / own, q3[key, names[i]] / own \
          > (prefix "." k[1] "." names[i] ".dat") } } }' "$f"
  for d in "$out/$name".*.dat; do sort -n -o "$d" "$d"; done
done
# One y range for every panel, from the data, so that nothing is clipped.
read -r lo hi < <(cat "$out"/*.dat | awk 'NR == 1 { lo = $2; hi = $2 }
  { for (c = 2; c <= 4; ++c) { if ($c < lo) lo = $c; if ($c > hi) hi = $c } }
  END { print (lo < 0.5 ? lo / 1.2 : 0.4), (hi > 2.5 ? hi * 1.2 : 3) }')
script="set terminal pngcairo size 1900,1600 noenhanced font 'sans,10'
set output '$figures/persistent_mpi4.png'
set multiplot layout 4,4 title \"MPI-4 persistent collectives through libchoreo_pmpi.so over a baseline (Open MPI: its own MPIX_X_init; MPICH: its nonblocking MPI_Ix, its own being wrong), 2 ranks, $(nproc) cores, $(hostname)\\n(medians of 300 within one run; band: the default drop-in's quartiles; below 1 is faster)\"
set logscale x 2
set logscale y
set yrange [$lo:$hi]
set xtics ('8 B' 8, '64 B' 64, '1 KiB' 1024, '8 KiB' 8192, '64 KiB' 65536, '1 MiB' 1048576)
set ytics ('0.15x' 0.15, '0.25x' 0.25, '0.35x' 0.35, '0.5x' 0.5, '0.75x' 0.75, '1x' 1, '1.5x' 1.5, '2x' 2, '3x' 3)
set grid
set key top right font ',9'
set xlabel 'message size'
set ylabel 'time over the baseline'
"
for library in mpich openmpi; do
  case $library in
    mpich) who="MPICH 4.0.2"; base=nonblocking other=library
      base_title="nonblocking MPI_Ix (baseline)" other_title="own MPI_X_init (wrong data)" ;;
    openmpi) who="Open MPI 4.1.4"; base=library other=nonblocking
      base_title="own MPIX_X_init (baseline)" other_title="nonblocking MPI_Ix" ;;
  esac
  for coll in bcast allreduce reduce gather scatter reduce_scatter neighbor_alltoallv; do
    d="$out/$library-auto.$coll" c="$out/$library-choreo.$coll"
    note=""
    [ "$coll" = neighbor_alltoallv ] && note=" (own and MPI_Ix: wrong blocks on 2 ranks)"
    script+="set title '$coll, $who$note'
plot '$d.drop-in.dat' using 1:3:4 with filledcurves fs transparent solid 0.25 noborder lc rgb '#0072B2' notitle, \\
     '$d.drop-in.dat' using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb '#0072B2' title 'drop-in, default', \\
     '$c.drop-in.dat' using 1:2 with linespoints pt 5 ps 0.6 lw 1.5 lc rgb '#D55E00' title 'drop-in, CHOREO_PERSISTENT=choreo', \\
     '$d.$other.dat' using 1:2 with lines dt 3 lw 1.5 lc rgb '#555555' title '$other_title', \\
     '$d.blocking.dat' using 1:2 with lines dt 2 lw 1.2 lc rgb '#999999' title 'blocking MPI_X', \\
     1 with lines lw 1 lc rgb '#000000' title '$base_title'
"
  done
  script+="set multiplot next
"  # each library's seven panels start a row
done
script+="unset multiplot
"
gnuplot <<< "$script"
echo "figure: $figures/persistent_mpi4.png" >&2
