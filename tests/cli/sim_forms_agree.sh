#!/usr/bin/env bash
# choreo sim --generate in its default form (ranks sharing stored program shapes) and with
# --compact-form (every op stored) must give the same run: makespan, every rank's finish,
# events and retries, with folded ranks (1000 is not a power of two), rendezvous messages,
# reductions and OS and network noise.
#   usage: sim_forms_agree.sh CHOREO
set -euo pipefail
choreo=$1
run() {
  "$choreo" --json sim --generate allreduce:recdbl:ranks=1000:bytes=100000:reduce_ns=50 \
    --noise os:period=20us,duration=1us --noise net:period=50us,duration=500 --noise seed=3 "$@" |
    jq -c '[.makespan, .events, .retries, .finish]'
}
shaped=$(run)
compact=$(run --compact-form)
if [ "$shaped" != "$compact" ]; then
  echo "sim_forms_agree: the forms differ: shaped ${shaped:0:80}... compact ${compact:0:80}..."
  exit 1
fi
echo "sim_forms_agree: same run (makespan, events, retries: ${shaped:1:40}...)"
