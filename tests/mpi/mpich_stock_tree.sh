#!/usr/bin/env bash
# The MPICH stock tree that choreo embeds (src/select/data/mpich-4.0.2-mpir-generic.json) is
# the one in the libmpich this build's programs load: MPII_coll_generic_json, which MPICH
# compiles from the same JSON with all whitespace removed (maint/tuning/coll/json_gen.sh).
#
#   mpich_stock_tree.sh PROGRAM DATA_FILE
#
# PROGRAM is any program of this build linked with MPICH (its libmpich is found with ldd).
# Prints "mpich_stock_tree: ... OK" at the end, or why not and exits 1.
set -euo pipefail

die() { echo "mpich_stock_tree: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: mpich_stock_tree.sh PROGRAM DATA_FILE"
program=$1 data=$2
command -v strings >/dev/null || die "strings (binutils) not found"
lib=$(ldd "$program" | awk '/libmpich\.so/ {print $3; exit}')
[ -n "$lib" ] || die "$program does not load libmpich"
# MPICH's MPIR-level tree is the JSON string that names MPIR_ algorithms; the CH4 device's trees
# name MPIDI_ compositions and algorithms.
mapfile -t trees < <(strings -n 64 "$lib" | grep -E '^\{"collective=' | grep -F '"algorithm=MPIR_')
[ ${#trees[@]} -eq 1 ] || die "found ${#trees[@]} MPIR-level selection trees in $lib, expected 1"
ours=$(tr -d '[:space:]' < "$data")
if [ "${trees[0]}" != "$ours" ]; then
  diff <(echo "${trees[0]}" | fold -w 100) <(echo "$ours" | fold -w 100) | head -20 >&2 || true
  die "$data is not the tree in $lib"
fi
echo "mpich_stock_tree: $data without whitespace is $lib's MPII_coll_generic_json," \
     "${#ours} bytes: OK"
