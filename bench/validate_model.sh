#!/usr/bin/env bash
# Paper 001's validation (its Figs. 4-7): the step model with and without collisions against
# measured times of allgather ring and Bruck (and recursive doubling), in four settings:
#   smpi      SimGrid SMPI on generated torus platforms (FX10-like: 5 GB/s, 1 us per link);
#             the model is calibrated by `choreo-mpi calibrate` under SMPI on the same platform
#   sim       choreo sim on the same tori (LogGOPS, links held per message); the model's
#             table is the sim's own ping-pong: t(M) = L + 2o + (M-1)G
#   sim-fair  the same with links shared fairly among the messages crossing them
#   real      this machine: MPICH on 2 ranks, Open MPI on 4 (oversubscribed), calibrated here
#             (with calibrate's collective tables: an exchange among all ranks and a memcpy
#             of fresh data; the paper's tables' prediction is kept beside, DIR/real-rounds.csv)
# Every MPI run verifies every byte. Writes DIR/results.csv (setting, topology, algorithm,
# bytes, measured, predicted with and without collisions), DIR/tables.md, and
# DIR/ratio-*.png (predicted/measured against size) and DIR/times-*.png (both against size,
# with the crossovers). Progress goes to stderr.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/validate_model.sh [-o DIR] [--settings "smpi sim real"] [--topologies "1x6x4 2x3x4"]
                               [--sizes MIN:MAX] [--algorithms "ring bruck"] [--quick]

  -o DIR          output directory (default out/validate)
  --settings S    any of smpi, sim, sim-fair, real (default all four)
  --topologies T  tori for smpi and sim, each AxBxC or AxBxC=MIN:MAX for its own sizes
                  (default "1x6x4 2x3x4 4x4x4=8:256K 8x8x8=8:4K": SMPI moves real bytes, and
                  an allgather needs 2 P^2 M of memory)
  --sizes R       bytes per rank, MIN:MAX in powers of 2 (default 8:4M)
  --algorithms A  allgather algorithms (default "ring bruck recdbl")
  --rounds N      real: rounds of calibrate-then-run per library (default 3); each
                  reported time is the median over rounds
  --smpi-max-ranks N  smpi: skip larger tori (default 256: SMPI took 17.6-22.8 GB for the 512
                  ranks of 8x8x8 here, and the kernel's OOM killer stopped it; choreo sim runs them)
  --quick         2x3x4 only, sizes 1K:256K (a smoke run)
  -h, --help      this help

Needs `scripts/build default` (and `scripts/build openmpi` for real Open MPI runs).
EOF
}

cd "$(dirname "$0")/.."
out=out/validate
settings="smpi sim sim-fair real"
topologies="1x6x4 2x3x4 4x4x4=8:256K 8x8x8=8:4K"
sizes=8:4M
algorithms="ring bruck recdbl"
rounds=3
smpi_max_ranks=256
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    --settings) settings=$2; shift 2 ;;
    --topologies) topologies=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --algorithms) algorithms=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --smpi-max-ranks) smpi_max_ranks=$2; shift 2 ;;
    --quick) topologies=2x3x4=1K:256K; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "validate_model.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

default_sizes=$sizes
choreo=build/default/tools/choreo
mpich_mpi=build/default/tools/choreo-mpi
smpi_mpi=build/default/smpi/tools/choreo-mpi
ompi_mpi=build/openmpi/tools/choreo-mpi
for tool in "$choreo" "$mpich_mpi" "$smpi_mpi"; do
  [ -x "$tool" ] || { echo "missing $tool: run scripts/build default" >&2; exit 1; }
done
mkdir -p "$out/schedules" "$out/runs" "$out/log"
csv=$out/results.csv
echo "setting,topology,algorithm,bytes,measured_s,predicted_s,predicted_nocoll_s" > "$csv"
say() { echo "== $*" >&2; }
algo_list=$(echo "$algorithms" | tr ' ' ,)

# The sizes as choreo select samples them, so predictions and runs line up.
size_list() { $choreo select allgather --alpha 1us --bandwidth 1GBps --ranks 2 --sizes "$sizes" \
  --algorithms ring --json | jq -r '.sizes[]'; }

# predictions SETTING TOPOLOGY RANKS MODEL_ARGS...: select's JSON with and without collisions.
predictions() {
  local tag=$1 topo=$2 ranks=$3
  shift 3
  $choreo select allgather --ranks "$ranks" --topology "$topo" --sizes "$sizes" \
    --algorithms "$algo_list" "$@" --json > "$out/runs/$tag.predicted.json"
  $choreo select allgather --ranks "$ranks" --topology "$topo" --sizes "$sizes" \
    --algorithms "$algo_list" "$@" --no-collisions --json > "$out/runs/$tag.nocoll.json"
}

# predicted TAG ALGORITHM BYTES [VARIANT]: one predicted time from the select JSON
# $out/runs/TAG.VARIANT.json (VARIANT: predicted, the default; nocoll; paper).
predicted() {
  local file=$out/runs/$1.${4:-predicted}.json
  jq -r --arg a "$2" --argjson b "$3" \
    '(.sizes | index($b)) as $i | .algorithms[] | select(.algorithm == $a) | .seconds[$i] // "NA"' \
    "$file"
}

record() {  # SETTING TOPOLOGY TAG ALGORITHM BYTES MEASURED
  local p q
  p=$(predicted "$3" "$4" "$5") q=$(predicted "$3" "$4" "$5" nocoll)
  echo "$1,$2,$4,$5,$6,$p,$q" >> "$csv"
  printf '   %-5s %-6s %-7s %9s B  measured %-12s predicted %-12s (no collisions %s)\n' \
    "$1" "$2" "$4" "$5" "$6" "$p" "$q" >&2
}

# run_one TAG ALGORITHM BYTES RANKS LAUNCHER...: the median of $reps verified calls after
# $warmup, or NA.
run_one() {
  local tag=$1 algo=$2 bytes=$3 ranks=$4
  shift 4
  local spec=allgather:$algo:ranks=$ranks:bytes=$bytes
  local schedule=$out/schedules/$algo-$ranks-$bytes.json result=$out/runs/$tag-$algo-$bytes.json
  if $choreo generate "$spec" -o "$schedule" > /dev/null 2> "$out/log/$tag-$algo-$bytes.log" &&
    "$@" run "$schedule" --warmup "$warmup" --reps "$reps" -o "$result" \
      > /dev/null 2>> "$out/log/$tag-$algo-$bytes.log"; then
    jq -r .seconds.median "$result"
  else
    echo NA
  fi
}

# run_schedules SETTING TOPOLOGY TAG RANKS LAUNCHER...: every algorithm and size, verified.
run_schedules() {
  local setting=$1 topo=$2 tag=$3 ranks=$4
  shift 4
  for algo in $algorithms; do
    for bytes in $(size_list); do
      record "$setting" "$topo" "$tag" "$algo" "$bytes" "$(run_one "$tag" "$algo" "$bytes" "$ranks" "$@")"
    done
  done
}

# The awk median of a space-separated list ("NA" when empty), for the two summaries below.
awk_median='
  function median(list,    v, n, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; ++i) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; --j) {
      t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n == 0 ? "NA" : n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }'

# real_summary ROUNDS_CSV: Markdown, per library and algorithm at >= 64 KiB per rank, the
# predicted/measured ranges of the median over rounds, of the best (fastest) of the rounds on
# both sides, and of the paper's tables, and how far the rounds' measurements spread
# (slowest/fastest round of each size).
real_summary() {
  echo "| library | algorithm | median of rounds | best of rounds | paper's tables (median) | rounds' spread |"
  echo "|---|---|---:|---:|---:|---:|"
  awk -F, "$awk_median"'
    function widen(name, k, x) {
      if (!((name, k) in lo) || x < lo[name, k]) lo[name, k] = x
      if (!((name, k) in hi) || x > hi[name, k]) hi[name, k] = x
    }
    NR > 1 && $5 >= 65536 && $6 != "NA" && $7 != "NA" && $6 > 0 {
      s = $1 "-" $2 "|" $4 "|" $5
      if (!(s in m)) { sizes[++ns] = s; bm[s] = $6; bp[s] = $7; slow[s] = $6 }
      m[s] = m[s] " " $6; p[s] = p[s] " " $7; q[s] = q[s] " " $8
      if ($6 < bm[s]) bm[s] = $6; if ($7 < bp[s]) bp[s] = $7; if ($6 > slow[s]) slow[s] = $6
    }
    END {
      for (i = 1; i <= ns; ++i) {
        s = sizes[i]; split(s, f, "|"); k = f[1] "|" f[2]
        if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
        widen("median", k, median(p[s]) / median(m[s])); widen("best", k, bp[s] / bm[s])
        widen("paper", k, median(q[s]) / median(m[s])); widen("spread", k, slow[s] / bm[s])
      }
      for (i = 1; i <= nk; ++i) {
        k = keys[i]; split(k, f, "|")
        printf "| %s | %s | %.2f-%.2f | %.2f-%.2f | %.2f-%.2f | %.2f-%.2fx |\n", f[1], f[2],
          lo["median", k], hi["median", k], lo["best", k], hi["best", k],
          lo["paper", k], hi["paper", k], lo["spread", k], hi["spread", k]
      }
    }' "$1"
}

# median_of_rounds ROUNDS_CSV LIBRARY: one results.csv row per algorithm and size, the
# medians over rounds of the measured and the predicted times (an NA round is left out).
median_of_rounds() {
  awk -F, -v lib="$2" "$awk_median"'
    NR > 1 && $1 == lib && $6 != "NA" && $7 != "NA" {
      k = $4 "," $5
      if (!(k in m)) order[++keys] = k
      m[k] = m[k] " " $6; p[k] = p[k] " " $7; topo = $1 "-" $2
    }
    END { for (i = 1; i <= keys; ++i) { k = order[i]; x = median(p[k])
      printf "real,%s,%s,%s,%s,%s\n", topo, k, median(m[k]), x, x } }' "$1"
}

# SMPI's default latency factor multiplies every link's latency by 2 to 11.6 depending on the
# message size, so a hop beyond the calibrated pair's would cost 2-11.6 us: factors of 1 give
# FX10-like links of a fixed 1 us per hop, the paper's setting. SimGrid's TCP ACK
# cross-traffic is off as well: with it, a ring of 4 on 2x3x4 whose messages share no link
# direction takes 1.5x longer (docs/BENCHMARKS.md); Tofu has no TCP.
smpi_cfg=(--cfg=smpi/simulate-computation:no --cfg=smpi/test:0 --cfg=smpi/coll-selector:mpich
  --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 --cfg=network/crosstraffic:0
  --log=xbt_cfg.thres:warning --log=smpi_config.thres:warning --log=smpi_coll.thres:warning)

for setting in $settings; do
  case $setting in
    smpi)
      smpicc -O1 bench/barrier_skew.c -o "$out/barrier_skew" 2> "$out/log/barrier_skew.log"
      for entry in $topologies; do
        topo=${entry%%=*} sizes=$default_sizes
        [ "$entry" != "$topo" ] && sizes=${entry#*=}
        if (( $(echo "$topo" | tr x '*') > smpi_max_ranks )); then
          say "SMPI torus $topo skipped: more than --smpi-max-ranks $smpi_max_ranks ranks"
          continue
        fi
        say "SMPI torus $topo, $sizes B (5 GB/s, 1 us per link, factors 1, no ACK traffic)"
        platform=$out/torus-$topo.xml
        $choreo platform torus --dims "$topo" --bw 5GBps --lat 1us -o "$platform" > /dev/null
        ranks=$(($(echo "$topo" | tr x '*')))
        launcher=(smpirun -platform "$platform" -hostfile "${platform%.xml}.hosts" "${smpi_cfg[@]}")
        # The ping-pong pair is ranks 0 and 1: neighbours on the first dimension longer than 1.
        "${launcher[@]}" -np 2 "$smpi_mpi" calibrate -o "$out/profile-smpi-$topo.json" \
          > /dev/null 2> "$out/log/calibrate-smpi-$topo.log"
        # How far apart the barrier that starts each timed call releases the ranks: the
        # measured times include it, the model does not (the paper's small-size "imbalance").
        "${launcher[@]}" -np "$ranks" "$out/barrier_skew" > "$out/skew-smpi-$topo.txt" 2> /dev/null
        say "$(cat "$out/skew-smpi-$topo.txt")"
        # Each link adds 1 us beyond the calibrated neighbours' route (the paper's hop latency).
        # The paper's tables, ping-pong and memcpy (on a flow network a 2-rank exchange over a
        # full-duplex link takes as long as the ping-pong's one way, and SMPI copies for free).
        predictions "smpi-$topo" "torus:$topo" "$ranks" --profile "$out/profile-smpi-$topo.json" \
          --hop-latency 1us --tables paper
        warmup=1 reps=3
        run_schedules smpi "$topo" "smpi-$topo" "$ranks" "${launcher[@]}" -np "$ranks" "$smpi_mpi"
      done
      ;;
    sim|sim-fair)
      # LogGOPS for an FX10-like link: L = 1 us, o = 1 us, g = 1 us, G = 0.2 ns/B (5 GB/s).
      # sim holds every link of a route for the whole message (a circuit); sim-fair shares
      # links among the messages crossing them, like SimGrid's flow model.
      sharing=serialize
      [ "$setting" = sim-fair ] && sharing=fair
      model=(--L 1000 --o 1000 --g 1000 --G 0.2 --S 0 --sharing "$sharing")
      for entry in $topologies; do
        # The sim moves no bytes: every torus gets the full size range.
        topo=${entry%%=*} sizes=$default_sizes
        say "choreo sim, torus $topo, $sizes B, links $sharing"
        ranks=$(($(echo "$topo" | tr x '*')))
        # The sim's ping-pong one way: L + 2o + (M-1)G, i.e. Hockney alpha = L + 2o, 5 GB/s.
        # choreo sim's copies take no time, so neither do the model's memcpys.
        predictions "$setting-$topo" "torus:$topo" "$ranks" --alpha 3us --bandwidth 5GBps \
          --memcpy-bandwidth 1000TBps
        for algo in $algorithms; do
          for bytes in $(size_list); do
            result=$out/runs/$setting-$topo-$algo-$bytes.json median=NA
            if $choreo sim --generate "allgather:$algo:ranks=$ranks:bytes=$bytes" \
              --network "torus:$topo" "${model[@]}" -o "$result" > /dev/null \
              2> "$out/log/$setting-$topo-$algo-$bytes.log"; then
              median=$(jq -r .seconds.median "$result")
            fi
            record "$setting" "$topo" "$setting-$topo" "$algo" "$bytes" "$median"
          done
        done
      done
      ;;
    real)
      rounds_csv=$out/real-rounds.csv
      echo "library,ranks,round,algorithm,bytes,measured_s,predicted_s,predicted_paper_s" \
        > "$rounds_csv"
      for lib in mpich openmpi; do
        if [ $lib = mpich ]; then
          tool=$mpich_mpi ranks=2 launcher=(mpiexec.mpich -n 2)
        else
          [ -x "$ompi_mpi" ] || { say "skipping Open MPI: run scripts/build openmpi"; continue; }
          tool=$ompi_mpi ranks=4 launcher=(mpiexec.openmpi --allow-run-as-root --oversubscribe -n 4)
        fi
        # This machine drifts by tens of percent over minutes (docs/BENCHMARKS.md): each round
        # calibrates and then runs every size, the algorithms interleaved per size, so that a
        # prediction is compared with runs made right after its calibration.
        # 100 warm-up calls: MPICH's ch4:ucx takes about 70 exchanges between two ranks before
        # small messages (128 B to 8 KiB) stop taking 20-60 us (UCX's wire-up, shown by
        # bench/exchange_after_barrier.c); calibrate's tables are measured after thousands.
        sizes=$default_sizes warmup=100 reps=21
        for round in $(seq "$rounds"); do
          say "real $lib, $ranks ranks on this machine, round $round of $rounds"
          tag=real-$lib-$round profile=$out/profile-$lib-$round.json
          "${launcher[@]}" "$tool" calibrate --time-limit 45 -o "$profile" \
            > "$out/log/calibrate-$lib-$round.txt" 2> "$out/log/calibrate-$lib-$round.log"
          # One node has no links to collide on: topology ideal, with and without collisions
          # alike. The collective tables time the steps and copies; the paper's kept beside.
          predictions "$tag" ideal "$ranks" --profile "$profile"
          $choreo select allgather --ranks "$ranks" --sizes "$sizes" --algorithms "$algo_list" \
            --profile "$profile" --tables paper --json > "$out/runs/$tag.paper.json"
          for bytes in $(size_list); do
            for algo in $algorithms; do
              measured=$(run_one "$tag" "$algo" "$bytes" "$ranks" "${launcher[@]}" "$tool")
              p=$(predicted "$tag" "$algo" "$bytes")
              q=$(predicted "$tag" "$algo" "$bytes" paper)
              echo "$lib,$ranks,$round,$algo,$bytes,$measured,$p,$q" >> "$rounds_csv"
              printf '   real  %s-%s r%s %-7s %9s B  measured %-12s predicted %-12s (paper tables %s)\n' \
                "$lib" "$ranks" "$round" "$algo" "$bytes" "$measured" "$p" "$q" >&2
            done
          done
        done
        median_of_rounds "$rounds_csv" "$lib" >> "$csv"
      done
      real_summary "$rounds_csv" > "$out/real-summary.md"
      say "predicted/measured on this machine, >= 64 KiB:"
      cat "$out/real-summary.md" >&2
      ;;
    *) echo "unknown setting '$setting' (smpi sim sim-fair real)" >&2; exit 2 ;;
  esac
done

bench/validate_tables.sh "$csv" "$out"
