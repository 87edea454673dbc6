#!/usr/bin/env bash
# choreo report --baseline/--bound/--plot against numbers computed here from the run files and
# the pattern with jq (not by choreo): each run's speed-up is the baseline's median over its
# own, the port bound the largest bytes through one rank's send or receive port / bandwidth.
set -euo pipefail
choreo=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
cd "$work"
"$choreo" pattern scale-free --ranks 16 --m0 3 --sizes uniform:1000:70000 --seed 5 -o p.json > /dev/null
"$choreo" schedule --algo optimal --paced --delta 560000 p.json -o paced.json > /dev/null
for algo in direct ring paced; do
  [ $algo = paced ] || "$choreo" schedule --algo $algo p.json -o $algo.json > /dev/null
  "$choreo" sim $algo.json --network switch --sharing serialize --dma-receive --G 8 \
    --label $algo -o $algo.run.json > /dev/null
done
"$choreo" --json report direct.run.json ring.run.json paced.run.json --baseline direct --bound p.json \
  --bandwidth 125MBps --plot plot.png > report.json

bound=$(jq '([.messages | group_by(.src)[] | map(.bytes) | add] +
  [.messages | group_by(.dst)[] | map(.bytes) | add] | max) / 125000000' p.json)
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b) + 1e-15) }'; }
fail() { echo "report_compare: $*" >&2; exit 1; }
close "$(jq .port_bound_seconds report.json)" "$bound" || fail "port bound $(jq .port_bound_seconds report.json), expected $bound"
base=$(jq .seconds.median direct.run.json)
[ "$(jq .seconds.median paced.run.json)" != "$base" ] || fail "the paced run takes as long as direct: no speed-up to check"
for algo in direct ring paced; do
  median=$(jq .seconds.median $algo.run.json)
  got=$(jq --arg l $algo '.runs[] | select(.label == $l)' report.json)
  close "$(jq .speedup_vs_baseline <<< "$got")" "$(awk -v b="$base" -v m="$median" 'BEGIN { printf "%.17g", b / m }')" ||
    fail "$algo: speed-up $(jq .speedup_vs_baseline <<< "$got")"
  close "$(jq .ratio_to_port_bound <<< "$got")" "$(awk -v m="$median" -v b="$bound" 'BEGIN { printf "%.17g", m / b }')" ||
    fail "$algo: ratio to the bound $(jq .ratio_to_port_bound <<< "$got")"
done
[ "$(head -c 8 plot.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "plot.png is not a PNG"
# The table says the same in words.
"$choreo" report direct.run.json ring.run.json --baseline direct --bound p.json --bandwidth 1Gbps |
  grep -Eq "^direct +[0-9.]+ [mu]?s +\(baseline\)" || fail "the table does not mark the baseline"
# Refusals: one line naming the problem, exit 1.
refuses() {  # REGEX ARGS...
  local regex=$1 status=0
  shift
  "$choreo" report "$@" > out.txt 2> err.txt || status=$?
  [ $status = 1 ] && [ "$(wc -l < err.txt)" = 1 ] && grep -Eq -- "$regex" err.txt ||
    fail "report $*: exit $status, stderr: $(cat err.txt)"
}
refuses "--bound PATTERN needs the port bandwidth" direct.run.json --bound p.json
refuses "--bandwidth is for the port bound" direct.run.json --bandwidth 1Gbps
refuses "--baseline 'x': no run has that label; the runs are 'direct', 'ring'" direct.run.json ring.run.json --baseline x
refuses "--baseline 'direct': two runs have that label" direct.run.json direct.run.json --baseline direct
refuses "cannot write .*folder" direct.run.json --plot no/such/folder/p.png
echo "report_compare: OK"
