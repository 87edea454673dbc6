#!/usr/bin/env bash
# ScaLAPACK's own tester of PDHSEQR (Debian's scalapack-mpi-test, built for this MPI), a program
# choreo's authors did not write, run as it ships: without and with libchoreo_scalapack.so
# preloaded. PDHSEQR's reordering calls pdgemr2d a few hundred times; the test passes when both
# runs print PASSED for every matrix (the tester checks its residual and orthogonality against
# its threshold) and the library's report shows it served every pdgemr2d call.
#
# usage: debian_tester.sh TESTS_DIR LIBCHOREO_SCALAPACK WORKDIR MPIEXEC... (up to its -n flag)
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,8p' "$0" >&2; exit 2; }
tests=$1 lib=$(realpath "$2") work=$3
shift 3
launcher=("$@")
tester=$tests/xdhseqr
[[ -x $tester ]] || { echo "debian_tester: $tester missing: install scalapack-mpi-test (scripts/install-deps)" >&2; exit 1; }
mkdir -p "$work"
cd "$work"
cp /usr/share/scalapack/*.dat .  # its input files, read from the working directory
"${launcher[@]}" 2 "$tester" > plain.txt 2>&1
"${launcher[@]}" 2 env LD_PRELOAD="$lib" CHOREO_REPORT=report.json "$tester" > choreo.txt 2>&1
cat choreo.txt
plain_passed=$(grep -c ' PASSED' plain.txt || true)
choreo_passed=$(grep -c ' PASSED' choreo.txt || true)
failed=$(cat plain.txt choreo.txt | grep -c 'FAILED' || true)
read -r calls took < <(jq -r '.functions.pdgemr2d | "\(.calls // 0) \(.choreo // 0)"' report.json)
echo "debian_tester: PASSED lines without / with the library: $plain_passed / $choreo_passed; pdgemr2d calls $calls, served by choreo $took"
if [[ $plain_passed -lt 1 || $choreo_passed -ne $plain_passed || $failed -ne 0 || $calls -lt 1 || $took -ne $calls ]]; then
  echo "debian_tester: FAILED"
  exit 1
fi
echo "debian_tester: OK"
