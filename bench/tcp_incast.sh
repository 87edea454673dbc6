#!/usr/bin/env bash
# Where contention-free scheduling matters on a switch that drops (issue 23; choreo sim's
# `--sharing tcp`, docs/sim-model.md): paper 000's cluster (64 nodes, one 1 GbE switch,
# 63 KiB messages) in choreo sim, each pattern as Thakur's ring sends it, with paper 000's
# delay insertion and with choreo's time-slotted plan (optimal --paced), over a grid of
# switch port buffers and retransmission timeouts; then paper 000's Fig. 5, the delay per
# empty slot swept on the gather; then paper 000's Table 3 at the default buffer and timeout,
# with Open MPI 3.1's own algorithms for the MPI calls where choreo generates them, beside the
# paper's figures. Deterministic: one run per point.
# Writes DIR/sweep.csv (pattern, buffer, rto, the three makespans, ring / paced, timeouts,
# drops), DIR/heatmap-PATTERN.png (ring / paced), DIR/delta.csv, DIR/delta.png and
# DIR/table3.md. Progress on stderr.
set -euo pipefail
export LC_ALL=C

usage() {
  cat <<'EOF'
usage: bench/tcp_incast.sh [-o DIR] [--patterns P] [--buffers B] [--rtos R] [--deltas D]
                           [--choreo PATH]

  -o DIR          output directory (default out/tcp-incast)
  --patterns P    paper 000's 64-rank patterns (default "gather triangle sf-1")
  --buffers B     switch port buffers (default "32KiB 64KiB 128KiB 256KiB 512KiB 1MiB 2MiB 4MiB")
  --rtos R        minimum retransmission timeouts (default "1ms 4ms 10ms 40ms 200ms")
  --deltas D      Fig. 5's delays per empty slot, in us (default "0 50 100 ... 1000"), at the
                  default buffer and timeout
  --choreo PATH   choreo binary (default build/default/tools/choreo, built if missing)
  -h, --help      this help
EOF
}

start_dir=$PWD
cd "$(dirname "$0")/.."
abspath() { if [[ $1 == /* ]]; then printf '%s' "$1"; else printf '%s/%s' "$start_dir" "$1"; fi; }
# shellcheck source=bench/lib/switch64.sh
. bench/lib/switch64.sh
out=out/tcp-incast choreo=build/default/tools/choreo
patterns="gather triangle sf-1"
buffers="32KiB 64KiB 128KiB 256KiB 512KiB 1MiB 2MiB 4MiB"
rtos="1ms 4ms 10ms 40ms 200ms"
deltas=$(seq 0 50 1000)
while (($#)); do
  case $1 in
    -o) out=$(abspath "${2:?-o needs a directory}"); shift 2 ;;
    --patterns) patterns=${2:?}; shift 2 ;;
    --buffers) buffers=${2:?}; shift 2 ;;
    --rtos) rtos=${2:?}; shift 2 ;;
    --deltas) deltas=${2:?}; shift 2 ;;
    --choreo) choreo=$(abspath "${2:?--choreo needs a path}"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "tcp_incast: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
say() { printf 'tcp_incast: %s\n' "$*" >&2; }
[[ -x $choreo ]] || { [[ $choreo == build/default/tools/choreo ]] && scripts/build default; } ||
  { echo "tcp_incast: $choreo is not an executable" >&2; exit 1; }
for tool in jq gnuplot; do
  command -v "$tool" >/dev/null || { echo "tcp_incast: needs $tool (apt-get install $tool)" >&2; exit 1; }
done
mkdir -p "$out/schedules"

# compare_irregular.sh's sim model: L = 100 us (two 50 us links), 1 GbE, DMA receives.
model=(--network switch --sharing tcp --dma-receive --L 100us --o 2us --g 2us --G 1Gbps
  --S 65536)
slot=$((2000 + (paper_bytes - 1) * 8))  # g + (k-1)G: what one message holds a port

# sim SCHEDULE ARGS...: "makespan_ms timeouts drops"
sim() {
  "$choreo" sim "$1" "${model[@]}" "${@:2}" --json |
    jq -r '"\(.makespan / 1e6) \(.tcp.timeouts) \(.tcp.drops)"'
}

csv=$out/sweep.csv
echo "pattern,buffer,rto,ring_ms,delay_ms,paced_ms,ring_over_paced,ring_timeouts,ring_drops,delay_drops,paced_drops" > "$csv"
for name in $patterns; do
  pfile=$(paper_pattern "$choreo" "$name" 64 "$out/schedules")
  for algo in ring delay; do
    "$choreo" schedule --algo $algo --delta "$slot" "$pfile" \
      -o "$out/schedules/$name.$algo.json" > /dev/null
  done
  "$choreo" schedule --algo optimal --paced --delta "$slot" "$pfile" \
    -o "$out/schedules/$name.paced.json" > /dev/null
  say "$name: $(wc -w <<< "$buffers") buffers x $(wc -w <<< "$rtos") timeouts"
  for buffer in $buffers; do
    for rto in $rtos; do
      read -r ring ring_timeouts ring_drops < <(sim "$out/schedules/$name.ring.json" \
        --switch-buffer "$buffer" --rto "$rto")
      read -r delay _ delay_drops < <(sim "$out/schedules/$name.delay.json" \
        --switch-buffer "$buffer" --rto "$rto")
      read -r paced _ paced_drops < <(sim "$out/schedules/$name.paced.json" \
        --switch-buffer "$buffer" --rto "$rto")
      echo "$name,$buffer,$rto,$ring,$delay,$paced,$(jq -n "$ring / $paced"),$ring_timeouts,$ring_drops,$delay_drops,$paced_drops" >> "$csv"
    done
  done
done

# One heatmap per pattern: buffers across, timeouts up, ring / paced in each cell.
for name in $patterns; do
  data=$out/heatmap-$name.dat
  awk -F, -v p="$name" -v buffers="$buffers" -v rtos="$rtos" '
    BEGIN { nb = split(buffers, b, " "); nr = split(rtos, r, " ")
            for (i = 1; i <= nb; ++i) bi[b[i]] = i - 1; for (j = 1; j <= nr; ++j) rj[r[j]] = j - 1 }
    $1 == p { printf "%d %d %.3f\n", bi[$2], rj[$3], $7 }' "$csv" > "$data"
  xtics=$(awk -v s="$buffers" 'BEGIN { n = split(s, a, " "); for (i = 1; i <= n; ++i)
    printf "%s\"%s\" %d", (i > 1 ? ", " : ""), a[i], i - 1 }')
  ytics=$(awk -v s="$rtos" 'BEGIN { n = split(s, a, " "); for (i = 1; i <= n; ++i)
    printf "%s\"%s\" %d", (i > 1 ? ", " : ""), a[i], i - 1 }')
  gnuplot <<EOF
set terminal pngcairo noenhanced size 760,420 font ',9'
set output '$out/heatmap-$name.png'
set title "$name, 64 nodes, 1 GbE switch that drops (choreo sim --sharing tcp): ring / optimal --paced"
set xlabel 'switch port buffer'; set ylabel 'minimum retransmission timeout'
set xtics ($xtics); set ytics ($ytics)
set xrange [-0.5:$(($(wc -w <<< "$buffers") - 1)).5]; set yrange [-0.5:$(($(wc -w <<< "$rtos") - 1)).5]
set logscale cb; set cbrange [1:*]; set cblabel 'ring / optimal --paced (at most 1: no gain)'
set palette defined (0 '#ffffcc', 1 '#fd8d3c', 2 '#800026')
plot '$data' using 1:2:3 with image notitle, \
     '' using 1:2:(sprintf('%.1f', \$3)) with labels font ',8' notitle
EOF
done

# Fig. 5: the gather with delay insertion against the delay per empty slot.
dcsv=$out/delta.csv
echo "delta_us,makespan_ms,timeouts,drops" > "$dcsv"
gather=$(paper_pattern "$choreo" gather 64 "$out/schedules")
for d in $deltas; do
  "$choreo" schedule --algo delay --delta "${d}us" "$gather" -o "$out/schedules/gather.d$d.json" >/dev/null
  read -r ms timeouts drops < <(sim "$out/schedules/gather.d$d.json")
  echo "$d,$ms,$timeouts,$drops" >> "$dcsv"
done
gnuplot <<EOF
set terminal pngcairo noenhanced size 640,400 font ',9'
set output '$out/delta.png'
set datafile separator ','
set title "gather with delay insertion, 64 nodes, 1 GbE switch that drops (256 KiB ports, 200 ms timeout)"
set xlabel 'delay per empty slot (us)'; set ylabel 'ms per gather'; set logscale y; set grid
set key top right
plot '$dcsv' every ::1 using 1:2 with linespoints pt 7 title 'choreo sim --sharing tcp', \
     $(jq -n "$(port_lower_bound "$gather") * 1000") with lines dt 2 lc rgb 'black' title 'port bound'
EOF
# Table 3: paper 000's figures (ms, its 64-node 1 GbE cluster, Open MPI 3.1) and the same
# methods here. The MPI calls run Open MPI 3.1's choice at this size (coll/tuned's fixed
# rules): linear scatter, linear gather with its handshake, neighbour-exchange allgather,
# pairwise alltoall and alltoallv, and the split-binary-tree bcast of one 63 KiB block.
table=$out/table3.md
{
  echo "| pattern | method | paper 000 (ms) | choreo sim --sharing tcp (ms) | drops | timeouts |"
  echo "|---|---|---:|---:|---:|---:|"
} > "$table"
row() {  # PATTERN METHOD PAPER_MS SCHEDULE
  local ms timeouts drops
  read -r ms timeouts drops < <(sim "$4")
  printf '| %s | %s | %s | %.1f | %s | %s |\n' "$1" "$2" "$3" "$ms" "$drops" "$timeouts" >> "$table"
}
table_spec() {  # GENERATOR SPEC -> schedule file
  local file=$out/schedules/${1//:/_}.json
  "$choreo" generate "$1:ranks=64:bytes=$paper_bytes" -o "$file" > /dev/null
  printf '%s' "$file"
}
for name in scatter gather alltoall triangle; do
  pfile=$(paper_pattern "$choreo" "$name" 64 "$out/schedules")
  for algo in ring delay pairwise; do
    "$choreo" schedule --algo $algo --delta "$slot" "$pfile" -o "$out/schedules/t3-$name.$algo.json" > /dev/null
  done
done
row scatter ring 33.2 "$out/schedules/t3-scatter.ring.json"
row scatter "delay insertion" 33.2 "$out/schedules/t3-scatter.delay.json"
row scatter "MPI_Bcast (split binary tree)" 0.8 "$(table_spec bcast:split_bintree)"
row scatter "MPI_Scatter (linear)" 32.8 "$(table_spec scatter:linear)"
row gather ring 214.4 "$out/schedules/t3-gather.ring.json"
row gather "delay insertion" 33.2 "$out/schedules/t3-gather.delay.json"
row gather "MPI_Gather (linear_sync)" 33.1 "$(table_spec gather:linear_sync)"
row alltoall ring 37.0 "$out/schedules/t3-alltoall.ring.json"
row alltoall "delay insertion" 37.1 "$out/schedules/t3-alltoall.delay.json"
row alltoall "MPI_Allgather (neighbour exchange)" 76.8 "$(table_spec allgather:neighbor)"
row alltoall "MPI_Alltoall (pairwise)" 112.9 "$(table_spec alltoall:pairwise)"
row triangle ring 210.0 "$out/schedules/t3-triangle.ring.json"
row triangle "delay insertion" 75.1 "$out/schedules/t3-triangle.delay.json"
row triangle "MPI_Alltoallv (pairwise)" 82.4 "$out/schedules/t3-triangle.pairwise.json"

say "wrote $csv, $out/heatmap-*.png, $dcsv, $out/delta.png and $table"
column -s, -t "$csv"
column -s, -t "$dcsv"
cat "$table"
