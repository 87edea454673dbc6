#!/usr/bin/env bash
# Builds the test tools of tests/apps with Open MPI's compiler wrapper (Debian's MPI applications
# are linked with Open MPI 4.1, so a preloaded PMPI library must be too):
#   count_calls.so       counts the collectives a C PMPI library (libchoreo_pmpi.so) sees
#   count_calls_pmpi.so  the same, also through PMPI_X (sees Open MPI's Fortran bindings)
#   fftw_mpi_driver      a distributed 3-D FFT with FFTW's MPI interface
#   corrupt_alltoallv.so flips one received bit per MPI_Alltoallv: compare_app.sh must fail
# Usage: tests/apps/build.sh [OUTDIR]   (default build/apps); prints OUTDIR.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here/../../build/apps}
die() { echo "build.sh: $*" >&2; exit 1; }

command -v mpicc.openmpi >/dev/null || die "mpicc.openmpi not found: install libopenmpi-dev (scripts/install-deps)"
[ -f /usr/include/fftw3-mpi.h ] && [ -f /usr/include/fftw3.h ] ||
  die "FFTW headers missing: install libfftw3-dev libfftw3-mpi-dev (scripts/install-deps)"
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)

# -ldl for dlsym (the PMPI variant), -pthread because the counters are guarded by a mutex.
cc() { mpicc.openmpi -O2 -Wall -Wextra -Werror "$@" || die "compiling failed: mpicc.openmpi $*"; }
cc -fPIC -shared -pthread -o "$out/count_calls.so" "$here/count_calls.c" -ldl
cc -fPIC -shared -pthread -DCOUNT_PMPI -o "$out/count_calls_pmpi.so" "$here/count_calls.c" -ldl
cc -fPIC -shared -o "$out/corrupt_alltoallv.so" "$here/corrupt_alltoallv.c"
cc -o "$out/fftw_mpi_driver" "$here/fftw_mpi_driver.c" -lfftw3_mpi -lfftw3 -lm
echo "$out"
