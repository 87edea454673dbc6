#!/usr/bin/env bash
# usage: check_install.sh BUILD_DIR WORK_DIR CONSUMER_SOURCE MPI_CXX_COMPILER
set -euo pipefail
build=$1 work=$2 consumer=$3 mpicxx=$4
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# The consumer must use the MPI choreo was built with.
cmake -S "$consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DMPI_CXX_COMPILER="$mpicxx" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/choreo_consumer"
