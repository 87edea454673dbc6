#!/usr/bin/env bash
# Runs one unmodified Debian-packaged MPI application the way a user would, in a fresh
# directory, niced and bounded in time, and extracts the results worth comparing.
#
# Usage: tests/apps/run_app.sh APP [--preload LIB] [--ranks N] [--out DIR] [--timeout S]
#                              [--mca KEY=VALUE]...
#   APP        lammps | fftw | hpcc | ptscotch | dolfinx | mpb | cp2k   (README.md says what each
#              exercises);  "list" prints them with their default ranks and comparison policy
#   --preload  a PMPI library given to every rank as LD_PRELOAD (not to mpiexec itself)
#   --ranks    MPI ranks (default per application, at most 5: the machine has 2 cores)
#   --out      directory for the run (default: a new /tmp/run_app.APP.XXXXXX, kept)
#   --timeout  seconds before the run is killed (default per application)
#   --mca      passed to mpiexec as --mca KEY VALUE (e.g. coll_tuned_allreduce_algorithm=1
#              with coll_tuned_use_dynamic_rules=1 reorders Open MPI's own reductions)
#
# Writes into the run directory:
#   result.txt  what compare_app.sh compares (numbers it may compare with a tolerance)
#   exact.txt   what must be bit-identical whenever result.txt is (hashes, integer counts)
#   info.txt    ranks, wall time, preload, policy; counts.txt: a counting shim's summary
#   stdout.txt, stderr.txt and the application's own files
# and prints one line: APP, ranks, wall time, run directory. Exit 1 with one line on failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "run_app: $*" >&2; exit 1; }

# ---- per-application settings -------------------------------------------------------------
# packages: Debian packages the run needs (also listed in scripts/install-deps)
# ranks:    default rank count; timeout: seconds
# policy:   how compare_app.sh judges result.txt against a run without the library:
#             exact        bit-identical (the results depend only on data movement and on
#                          order-independent reductions)
#             tol:REL:ABS  equal within |a-b| <= max(REL*max(|a|,|b|), ABS) for every number;
#                          bit-identical is still reported as such. Used where floating-point
#                          sums go through MPI_Allreduce, whose order a replacement may change.
app_packages() {
  case $1 in
    lammps) echo "lammps lammps-examples openmpi-bin" ;;
    fftw) echo "libfftw3-dev libfftw3-mpi-dev libopenmpi-dev openmpi-bin build-essential" ;;
    hpcc) echo "hpcc openmpi-bin" ;;
    ptscotch) echo "ptscotch scotch openmpi-bin" ;;
    dolfinx) echo "fenicsx-performance-tests openmpi-bin" ;;
    mpb) echo "mpb-mpi mpb-doc openmpi-bin" ;;
    cp2k) echo "cp2k openmpi-bin" ;;
  esac
}
app_ranks() {
  case $1 in lammps | hpcc) echo 4 ;; fftw | ptscotch) echo 3 ;; *) echo 2 ;; esac
}
app_timeout() { echo 120; }
app_policy() {
  case $1 in
    fftw | ptscotch | hpcc) echo exact ;;
    lammps) echo "tol:1e-6:1e-9" ;;  # thermo energies drift by 1e-8 (README)
    dolfinx) echo "tol:1e-3:0" ;;
    mpb) echo "tol:1e-6:1e-9" ;;
    cp2k) echo "tol:1e-8:1e-12" ;;
  esac
}
# why a tolerance is allowed (compare_app.sh prints it with a WITHIN TOLERANCE verdict)
app_tolerance_reason() {
  case $1 in
    lammps) echo "MPI_Allreduce sums doubles (temperature, energies, pressure) every step; summed in another order on 3+ ranks, the last bits change and the MD trajectory drifts (1e-8 relative after 300 steps with Open MPI's linear instead of its default allreduce)" ;;
    dolfinx) echo "not reproducible even without a library: the mesh partition (PT-Scotch with threads) differs from run to run, so the solution norm varies by ~1e-4" ;;
    mpb) echo "not bit-reproducible even without a library (~1e-14 between two plain runs); its eigensolver sums doubles with MPI_Allreduce" ;;
    cp2k) echo "its reductions of doubles (through PMPI, and ScaLAPACK's through MPI_Allreduce) change the last bits when reordered" ;;
  esac
}
apps="lammps fftw hpcc ptscotch dolfinx mpb cp2k"

# ---- arguments ----------------------------------------------------------------------------
[ $# -ge 1 ] || die "usage: run_app.sh APP [--preload LIB] [--ranks N] [--out DIR] [--timeout S] [--mca K=V] (APP: $apps)"
app=$1
shift
if [ "$app" = list ]; then
  for a in $apps; do printf '%-9s ranks %s  policy %-15s packages: %s\n' "$a" "$(app_ranks "$a")" "$(app_policy "$a")" "$(app_packages "$a")"; done
  exit 0
fi
case " $apps " in *" $app "*) ;; *) die "unknown application '$app' (known: $apps)" ;; esac

preload="" ranks=$(app_ranks "$app") out="" limit=$(app_timeout "$app") mca=()
while [ $# -gt 0 ]; do
  case $1 in
    --preload) [ $# -ge 2 ] || die "--preload needs a library"; preload=$2; shift 2 ;;
    --ranks) [ $# -ge 2 ] || die "--ranks needs a number"; ranks=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; limit=$2; shift 2 ;;
    --mca)
      [ $# -ge 2 ] && [[ $2 == *=* ]] || die "--mca needs KEY=VALUE"
      mca+=(--mca "${2%%=*}" "${2#*=}"); shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
[[ $ranks =~ ^[1-5]$ ]] || die "--ranks must be 1..5 (2 shared cores), not '$ranks'"
[[ $limit =~ ^[0-9]+$ ]] || die "--timeout must be whole seconds, not '$limit'"
if [ -n "$preload" ]; then
  [ -f "$preload" ] || die "preload library '$preload' does not exist"
  preload=$(readlink -f "$preload")
fi

# ---- setup --------------------------------------------------------------------------------
# Installs what the application needs, as scripts/install-deps does (idempotent; apt-get only
# when a package is missing; waits for another apt-get rather than failing at once).
ensure_packages() {
  local missing=() p sudo=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "run_app: installing ${missing[*]}" >&2
  # bounded: a stuck mirror or lock must not hang the test
  $sudo timeout 600 apt-get update -q >&2 || die "apt-get update failed or took over 600 s"
  $sudo timeout 1800 env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >&2 ||
    die "apt-get could not install ${missing[*]} (or took over 1800 s)"
}
# shellcheck disable=SC2046  # the package list is meant to split
ensure_packages $(app_packages "$app")
command -v mpiexec.openmpi >/dev/null || die "mpiexec.openmpi not found (package openmpi-bin)"

if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/run_app.$app.XXXXXX") || die "cannot create a run directory"
else
  [ ! -e "$out" ] || [ -z "$(ls -A "$out")" ] || die "run directory '$out' is not empty"
  mkdir -p "$out" || die "cannot create '$out'"
fi
out=$(cd "$out" && pwd)
cd "$out"

# Debian's Open MPI refuses root unless told; --oversubscribe: more ranks than the 2 cores.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMP_NUM_THREADS=1 # LAMMPS and cp2k are OpenMP builds: one thread per rank on 2 cores

# Ranks that busy-poll starve each other on 2 shared cores (a niced 2-rank mpb run took over
# 120 s instead of 3 s while other jobs ran): yield the core while waiting, unless told otherwise.
[[ " ${mca[*]-} " == *" mpi_yield_when_idle "* ]] || mca+=(--mca mpi_yield_when_idle 1)

wall=""
# launch CMD...: runs CMD on $ranks ranks, stdout/stderr to files, wall time into $wall.
# timeout kills mpiexec, which kills the ranks; -k makes sure a stuck mpiexec goes too.
launch() {
  local pre=() t0 t1 rc=0
  [ -n "$preload" ] && pre=(-x LD_PRELOAD="$preload")
  t0=$(date +%s.%N)
  # stdin from /dev/null: mpiexec forwards its stdin to rank 0 and would eat a caller's input
  timeout -k 10 "$limit" nice -n 10 mpiexec.openmpi --oversubscribe --bind-to none -n "$ranks" \
    ${mca[@]+"${mca[@]}"} -x OMP_NUM_THREADS ${pre[@]+"${pre[@]}"} "$@" </dev/null >stdout.txt 2>stderr.txt || rc=$?
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    die "$app timed out after $limit s on $ranks ranks (logs in $out)"
  elif [ "$rc" -ne 0 ]; then
    die "$app failed with exit code $rc on $ranks ranks: $(grep -m1 -iE 'error|abort|fail|undefined symbol' stderr.txt stdout.txt 2>/dev/null | cut -c1-200 || true) (logs in $out)"
  fi
}

need_file() { [ -s "$1" ] || die "$app produced no $1 (logs in $out)"; }

# ---- the applications ---------------------------------------------------------------------

run_lammps() {
  # The peptide example (PPPM long-range electrostatics, 2004 atoms, 300 steps) as shipped,
  # plus three user-level options: "kspace_modify collective yes" makes the PPPM FFTs' remaps
  # use MPI_Alltoallv (otherwise Irecv/Send), full-precision thermo output, and a final dump
  # of all atoms so the trajectory's last bits can be compared.
  local ex=/usr/share/lammps/examples/peptide
  [ -f $ex/in.peptide ] || die "$ex/in.peptide missing (package lammps-examples)"
  cp $ex/in.peptide $ex/data.peptide .
  sed -i -e 's/^kspace_style.*/&\nkspace_modify\tcollective yes/' \
    -e 's/^thermo[[:space:]]\+50$/&\nthermo_modify\tformat float %.15g/' in.peptide
  echo 'write_dump all custom final.dump id type x y z vx vy vz modify sort id format float %.17g' >>in.peptide
  grep -q '^kspace_modify' in.peptide && grep -q '^thermo_modify' in.peptide ||
    die "in.peptide changed upstream: could not add the kspace_modify/thermo_modify lines"
  launch lmp -in in.peptide -log log.lammps
  need_file log.lammps
  need_file final.dump
  grep -q '^Loop time' log.lammps || die "lammps did not finish the run (see $out/log.lammps)"
  # thermo blocks from step 0 to the end, without the CPU time in the step headers
  awk '/^-+ Step /{on=1} /^Loop time/{on=0} on' log.lammps |
    sed -E 's/ CPU = +[0-9.]+ \(sec\) / /' >result.txt
  {
    echo "final.dump sha256 $(sha256sum <final.dump | cut -d' ' -f1)"
    grep -E '^(Total # of neighbors|Ave neighs/atom|Ave special neighs/atom|Neighbor list builds|Dangerous builds)' log.lammps
  } >exact.txt
}

run_fftw() {
  # fftw_mpi_driver (tests/apps/fftw_mpi_driver.c): 61^3 complex, FFTW_ESTIMATE (deterministic
  # plans), FFTW_DESTROY_INPUT and FFTW_MPI_TRANSPOSED_OUT/IN: with these FFTW's planner picks
  # its MPI_Alltoall transpose, which calls MPI_Alltoallv since 61 is not a multiple of the
  # ranks; 100 forward+backward round trips = 200 calls with the same counts.
  mpicc.openmpi -O2 -o fftw_mpi_driver "$here/fftw_mpi_driver.c" -lfftw3_mpi -lfftw3 -lm ||
    die "could not build fftw_mpi_driver"
  launch ./fftw_mpi_driver 61 61 61 --iters 100 --planner estimate --transposed-out --destroy-input
  grep -q '^result: passed' stdout.txt || die "fftw_mpi_driver: $(grep -m1 '^result' stdout.txt || echo 'no result line') (logs in $out)"
  grep -v '^time:' stdout.txt >result.txt
  grep -E '^rank [0-9]+ forward-output' stdout.txt >exact.txt
}

run_hpcc() {
  # HPC Challenge with Debian's example input (HPL N=1000, NB=80), the process grid P x Q
  # set to the rank count. Compared: the verification results of its Summary section
  # (residuals, norms, error counts), not its timings or rates.
  local tmpl=/usr/share/doc/hpcc/examples/_hpccinf.txt p q
  [ -f $tmpl ] || die "$tmpl missing (package hpcc)"
  p=1
  for ((q = 1; q * q <= ranks; q++)); do ((ranks % q == 0)) && p=$q; done
  q=$((ranks / p))
  sed -E -e "s/^[0-9]+( +Ps)/$p\1/" -e "s/^[0-9]+( +Qs)/$q\1/" $tmpl >hpccinf.txt
  grep -qE "^$p +Ps" hpccinf.txt && grep -qE "^$q +Qs" hpccinf.txt || die "could not set P x Q in hpccinf.txt"
  launch hpcc
  need_file hpccoutf.txt
  grep -q '^Success=1' hpccoutf.txt || die "hpcc did not report Success=1 (see $out/hpccoutf.txt)"
  if grep -qE 'FAILED|Found [1-9][0-9]* errors' hpccoutf.txt; then
    die "hpcc verification failed: $(grep -m1 -E 'FAILED|Found [1-9]' hpccoutf.txt)"
  fi
  # Summary keys, less the ones measuring time or speed
  sed -n '/^Begin of Summary section/,/^End of Summary section/p' hpccoutf.txt |
    grep -E '^[A-Za-z_0-9]+=' |
    grep -vE '(time|Time|flops|GUPs|GBs|GBytes|usec|_Copy|_Scale|_Add|_Triad|Wtick|ExeUpdates)[0-9]*=' >result.txt
  # verification verdicts (not PTRANS's per-repetition lines: how many it prints depends on
  # timings), HPL's scaled residual, RandomAccess's error counts, STREAM's validation
  grep -E '(tests completed and|tests skipped because)|^\|\|Ax-b\|\||^(Found [0-9]+ errors|Solution Validates|Node\(s\) with error)' \
    hpccoutf.txt | sed -E 's/^ +//' | sort | uniq -c >exact.txt
}

run_ptscotch() {
  # PT-Scotch's parallel sparse-matrix ordering (dgord) of a 40x40x40 3-D mesh graph made by
  # Scotch's own generator; -Cd: deterministic (without it, its threads make every run
  # different). gotst (sequential Scotch) reports the ordering's fill-in.
  gmk_m3 40 40 40 mesh.grf || die "gmk_m3 failed"
  launch dgord mesh.grf mesh.ord -Cd
  need_file mesh.ord
  gotst mesh.grf mesh.ord gotst.txt >/dev/null 2>&1 || die "gotst rejects the ordering dgord wrote"
  {
    echo "mesh.ord sha256 $(sha256sum <mesh.ord | cut -d' ' -f1)"
    cat gotst.txt
  } >result.txt
  cp result.txt exact.txt
}

run_dolfinx() {
  # DOLFINx's scaling test: Poisson on a unit cube, 20000 dofs, solved with a PETSc Krylov solver.
  # Setting up the distributed mesh and dof maps calls MPI_Neighbor_alltoallv.
  launch dolfinx-scaling-test --ndofs 20000
  grep -q 'Solution norm' stdout.txt || die "dolfinx-scaling-test printed no solution norm (logs in $out)"
  grep 'Solution norm' stdout.txt >result.txt
  grep 'Number of Krylov iterations' stdout.txt >info_extra.txt || true
  : >exact.txt # nothing is reproducible bit for bit: the mesh partition differs run to run
}

run_mpb() {
  # MIT Photonic Bands: the diamond-lattice example (3-D, 16^3 grid, 5 bands, 16 k-points);
  # its FFTs use FFTW's MPI interface, its eigensolver many small MPI_Allreduce.
  cp /usr/share/doc/mpb/examples/diamond.ctl . || die "diamond.ctl missing (package mpb-doc)"
  launch mpb-mpi diamond.ctl
  grep -q '^done' stdout.txt || die "mpb-mpi did not finish (logs in $out)"
  grep -E '^(freqs:|Gap from)' stdout.txt >result.txt
  : >exact.txt
}

run_cp2k() {
  # cp2k's H2O example (Quickstep DFT, 5 MD steps). Fortran: under Open MPI its MPI calls
  # reach PMPI_X directly, so a C PMPI library sees only ScaLAPACK/BLACS's C calls.
  cp /usr/share/doc/cp2k/examples/H2O.inp . || die "H2O.inp missing (package cp2k)"
  launch cp2k.psmp -i H2O.inp -o cp2k.out
  need_file cp2k.out
  grep -q 'PROGRAM ENDED' cp2k.out || die "cp2k did not finish (see $out/cp2k.out)"
  grep -E 'ENERGY\| Total FORCE_EVAL|MD\| Conserved quantity' cp2k.out >result.txt
  : >exact.txt
}

"run_$app"
[ -s result.txt ] || die "$app: nothing extracted into result.txt (logs in $out)"
grep -h '^\[count_calls\]' stderr.txt stdout.txt >counts.txt 2>/dev/null || rm -f counts.txt
{
  echo "app $app"
  echo "ranks $ranks"
  echo "wall_s $wall"
  echo "preload ${preload:-none}"
  echo "mca ${mca[*]:-none}"
  echo "policy $(app_policy "$app")"
  echo "tolerance_reason $(app_tolerance_reason "$app")"
  [ -f info_extra.txt ] && cat info_extra.txt
} >info.txt
echo "run_app: $app ranks=$ranks wall=${wall}s preload=${preload:-none} dir=$out"
