#!/usr/bin/env bash
# Paper 004's four sweeps (Figs. 5-21) with `choreo jitter sweep`, plus the comparisons
# beyond the paper. Usage: bench/jitter_sweep.sh [CHOREO] [OUTDIR] [MAX_LOG2_P]
# Defaults: build/default/tools/choreo, out/jitter, 16 (about 3 minutes on one core).
set -euo pipefail
choreo=${1:-build/default/tools/choreo}
out=${2:-out/jitter}
max=${3:-16}
common=(--log2-ranks "1:$max" --trials 30 --seed 1 --auto-t)
mkdir -p "$out"

sweep() { # NAME ARGS...: one sweep, its CSV, figures and JSON summary
  local name=$1
  shift
  "$choreo" --json jitter sweep "${common[@]}" "$@" -o "$out/$name.csv" --plot "$out/$name" \
    >"$out/$name.json"
  echo "$name: $(tr -d '\n ' <"$out/$name.json")"
}

# A (Figs. 5-7): alpha 1 us, period 1 ms, duration 10 us, x = Tcomm/duration.
sweep A --axis tcomm --x-range 1e-1:1e2 --period 1e-3 --duration 1e-5 --curve-x 1e-1
# B (Figs. 8-12): alpha 0.1 us, period 10 ms, duration 100 us.
sweep B --axis tcomm --x-range 1e-3:1e2 --alpha 1e-7 --period 1e-2 --duration 1e-4
# C (Figs. 13-16): period 1 ms, N = 8, x = duration/period.
sweep C --axis duty --x-range 1e-4:1e-1 --period 1e-3 --bytes 8
# D (Figs. 17-21): period 10 ms, N = 8.
sweep D --axis duty --x-range 1e-4:1e-1 --period 1e-2 --bytes 8
# The paper's simulator as its section 4.1.2 reads: ranks do not wait for their partners.
sweep B-independent --coupling independent --axis tcomm --x-range 1e-3:1e2 --alpha 1e-7 \
  --period 1e-2 --duration 1e-4
sweep D-independent --coupling independent --axis duty --x-range 1e-4:1e-1 --period 1e-2 --bytes 8
# The paper's future work: redundant copies hold their sender's CPU.
sweep B-sender-busy --redundant-cost sender-busy --axis tcomm --x-range 1e-3:1e2 --alpha 1e-7 \
  --period 1e-2 --duration 1e-4
# Ring (P <= 4096) and Rabenseifner under the same noise, Fig. 12's setting.
sweep B-algorithms --axis tcomm --x-range 1e-2 --alpha 1e-7 --period 1e-2 --duration 1e-4 \
  --algorithms butterfly,ring,rabenseifner --log2-ranks "1:$(( max < 12 ? max : 12 ))"
