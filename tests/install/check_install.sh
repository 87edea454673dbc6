#!/usr/bin/env bash
# The installed package, as other projects use it (tests/install/CMakeLists.txt says what).
# usage: check_install.sh --build DIR --work DIR --consumer DIR --examples DIR --mpicxx PATH
#          --mpicc PATH --mpi NAME --other-mpicxx PATH --other-mpicc PATH --soversion X.Y
#          --version X.Y.Z -- MPIEXEC [PREFLAGS...] NUMPROC_FLAG
# Prints "install: OK" at the end; any failure stops it with what went wrong.
set -euo pipefail
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2 ;;
    --work) work=$2 ;;
    --consumer) consumer=$2 ;;
    --examples) examples=$2 ;;
    --mpicxx) mpicxx=$2 ;;
    --mpicc) mpicc=$2 ;;
    --mpi) mpi=$2 ;;
    --other-mpicxx) other_mpicxx=$2 ;;
    --other-mpicc) other_mpicc=$2 ;;
    --soversion) soversion=$2 ;;
    --version) version=$2 ;;
    --) shift; break ;;
    *) echo "check_install.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done
mpiexec=("$@")  # MPIEXEC [PREFLAGS...] NUMPROC_FLAG: the rank count follows
fail() { echo "install: FAILED: $*" >&2; exit 1; }

rm -rf "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

# The shared library: versioned SONAME, and only the C API exported.
library=$(find "$prefix" -name "libchoreo.so.$soversion" | head -n 1)
[ -n "$library" ] || fail "no libchoreo.so.$soversion under $prefix"
libdir=$(dirname "$library")
[ -e "$libdir/libchoreo.so" ] || fail "no libchoreo.so link for -lchoreo in $libdir"
soname=$(readelf -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libchoreo.so.$soversion" ] || fail "SONAME is '$soname', not libchoreo.so.$soversion"
others=$(nm -D --defined-only "$library" | awk '$3 !~ /^choreo_/ {print $3}')
[ -z "$others" ] || fail "libchoreo.so exports more than choreo_*: $(echo $others | head -c 300)"
echo "install: $soname exports $(nm -D --defined-only "$library" | grep -c ' choreo_') choreo_* functions, nothing else"

# Every installed header compiles on its own (it includes what it uses), and nothing private
# is installed: the headers are the API (docs/architecture.md). One compiler run, each header in
# a translation unit of its own, included twice (its guard), compiled with -fsyntax-only.
# Under MPICH only: the headers are the same for both MPIs, every one of them is compiled with
# Open MPI's mpi.h by that build anyway, and the check takes CI time twice otherwise.
if [ "$mpi" = "MPICH" ]; then
  headers=$(cd "$prefix/include" && find choreo -name '*.hpp' | sort)
  [ -n "$headers" ] || fail "no headers under $prefix/include/choreo"
  for private in human.hpp text.hpp json_read.hpp huge_pages.hpp stats.hpp; do
    ! find "$prefix/include" -name "$private" | grep -q . || fail "the private header $private is installed"
  done
  units=()
  for h in $headers; do
    unit="$work/headers/${h//\//_}.cpp"
    mkdir -p "$work/headers"
    printf '#include <%s>\n#include <%s>\n' "$h" "$h" >"$unit"
    units+=("$unit")
  done
  "$mpicxx" -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I"$prefix/include" "${units[@]}" ||
    fail "an installed header does not compile on its own (above)"
  echo "install: $(echo "$headers" | wc -l) installed headers compile on their own"
fi

# A C++ project with find_package(choreo), configured with choreo's MPI.
cmake -S "$consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DMPI_CXX_COMPILER="$mpicxx" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/choreo_consumer"

# The C example with pkg-config and a plain C compiler (choreo.pc brings MPI in), as C99 with
# every warning an error: the header is plain C.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --modversion choreo)" = "$version" ] || fail "pkg-config --modversion choreo"
pkg-config --print-requires choreo
cc -std=c99 -Wall -Wextra -Wpedantic -Werror "$examples/exchange.c" -o "$work/exchange_pkgconfig" \
  $(pkg-config --cflags --libs choreo) -Wl,-rpath,"$libdir"
"${mpiexec[@]}" 3 "$work/exchange_pkgconfig" | tee "$work/exchange_pkgconfig.out"
grep -q "3 ranks, 3 steps, .* elements checked: OK" "$work/exchange_pkgconfig.out" ||
  fail "the pkg-config build of exchange.c"

# The C example with CMake: find_package(choreo) in a C-only project, choreo::capi.
cmake -S "$examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" \
  -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$work/examples" >/dev/null
"${mpiexec[@]}" 4 "$work/examples/exchange" | tee "$work/exchange_cmake.out"
grep -q "4 ranks, 3 steps, .* elements checked: OK" "$work/exchange_cmake.out" ||
  fail "the CMake build of exchange.c"

# The other MPI: find_package(choreo) must stop, naming both MPIs and the fix, from C and C++.
if [ -z "$other_mpicc" ] || [ -z "$other_mpicxx" ]; then
  echo "install: no second MPI installed: the wrong-MPI check is skipped"
else
  for project in "$examples:MPI_C_COMPILER=$other_mpicc:MPI_C_COMPILER=$mpicc" \
                 "$consumer:MPI_CXX_COMPILER=$other_mpicxx:MPI_CXX_COMPILER=$mpicxx"; do
    IFS=: read -r source wrong fix <<<"$project"
    if cmake -S "$source" -B "$work/wrong_mpi" -DCMAKE_PREFIX_PATH="$prefix" -D"$wrong" \
         >"$work/wrong_mpi.log" 2>&1; then
      fail "find_package(choreo) accepted -D$wrong (choreo is built with $mpi)"
    fi
    # The message, its line breaks undone (CMake wraps it).
    message=$(tr -s ' \n' ' ' <"$work/wrong_mpi.log")
    for expected in "was built with $mpi" "but this project found" "-D$fix"; do
      [[ $message == *"$expected"* ]] || { cat "$work/wrong_mpi.log" >&2;
        fail "configuring with -D$wrong: no '$expected' in the error"; }
    done
    echo "install: -D$wrong refused: $(grep -o "was built with [^,]*" <<<"$message")," \
         "$(grep -o "this project found [^(]*" <<<"$message")"
    rm -rf "$work/wrong_mpi"
  done
fi
echo "install: OK"
