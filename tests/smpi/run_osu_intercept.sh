#!/usr/bin/env bash
# The interposition library under SimGrid SMPI: bench/osu_alltoallv.c linked with the library's
# archive before libsimgrid (osu_alltoallv_choreo) on a 4-node switch, CHOREO_MODE=choreo.
# Passes when the program verified its data (a line per size, exit 0) and the library's
# report shows that it took every MPI_Alltoallv call of every rank (each rank has its own
# copy of the library's globals: smpi/privatization:dlopen, -fno-gnu-unique).
#
# usage: run_osu_intercept.sh CHOREO SMPIRUN OSU_CHOREO WORKDIR
set -euo pipefail

if [[ $# -ne 4 ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2
  exit 2
fi
choreo=$(realpath "$1") smpirun=$2 osu=$(realpath "$3") workdir=$4
mkdir -p "$workdir"
cd "$workdir"
"$choreo" platform switch --nodes 4 --bw 1Gbps --lat 50us -o platform.xml > /dev/null
"$choreo" pattern scale-free --ranks 4 --m0 2 --bytes 1 --seed 1 -o pattern.json > /dev/null

status=0
CHOREO_MODE=choreo CHOREO_REPORT=stderr "$smpirun" -platform platform.xml \
  -hostfile platform.hosts -np 4 --cfg=smpi/simulate-computation:no --cfg=smpi/test:0 \
  --log=xbt_cfg.thres:warning --log=smpi_config.thres:warning --log=smpi_coll.thres:warning \
  "$osu" --pattern pattern.json -m 1024:65536 -i 5 -x 2 > osu.txt 2> osu.log || status=$?
cat osu.txt osu.log
# smpirun can exit 0 after a deadlock: the output is what counts.
sizes=$(awk '!/^#/ && NF >= 6' osu.txt | wc -l)
read -r calls took fallback < <(awk '$1 == "MPI_Alltoallv" { print $2, $3, $4 }' osu.log) || true
# 1 KiB to 64 KiB doubling, plus 63 KiB: 8 sizes of 7 calls on 4 ranks.
if [[ $status -ne 0 || $sizes -ne 8 || ${calls:-0} -ne 224 || ${took:-0} -ne 224 ]]; then
  echo "run_osu_intercept.sh: FAILED: status $status, $sizes of 8 sizes, report: ${calls:-?} calls, ${took:-?} by choreo, ${fallback:-?} handed to MPI (want 224 and 224)" >&2
  exit 1
fi
echo "run_osu_intercept.sh: OK: osu_alltoallv_choreo on 4 SMPI ranks, every MPI_Alltoallv taken by choreo, data verified"
