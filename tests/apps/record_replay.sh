#!/usr/bin/env bash
# Record and replay of an unmodified Debian-packaged MPI application (docs/record-replay.md):
# LAMMPS's melt example (3-d Lennard-Jones, 4000 atoms, 250 steps) on 2 Open MPI ranks, run
# once as shipped and once with libchoreo_pmpi.so recording (CHOREO_RECORD, CHOREO_MODE=mpi:
# the library's own collectives run), then `choreo import` and `choreo sim`.
#   usage: record_replay.sh CHOREO LIBCHOREO_PMPI WORKDIR
# Checks, each against something the replay did not compute:
#   - recording changes nothing: the thermo output of both runs is identical;
#   - the schedule pairs every message: as many send as recv lines;
#   - with every network cost 0, the replay's makespan lies between the longest rank's own
#     computation and all ranks' computation together (sums of the calc lines, by awk);
#   - with LogGOPSim's default costs, it is no shorter than with none.
set -euo pipefail
export LC_ALL=C
choreo=$1 lib=$2 work=$3
die() { echo "record_replay: $*" >&2; exit 1; }
example=/usr/share/doc/lammps-examples/examples/melt/in.melt
[[ -f $example ]] || example=/usr/share/lammps/examples/melt/in.melt
[[ -f $example ]] || die "in.melt not found (package lammps-examples)"
command -v lmp >/dev/null || die "lmp not found (package lammps)"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$example" in.melt
if [[ $(id -u) -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMP_NUM_THREADS=1
run() { # OUT [ENV...]: one 2-rank run of the example
  local out=$1
  shift
  timeout -k 10 300 env "$@" mpiexec.openmpi --oversubscribe --bind-to none -n 2 \
    --mca mpi_yield_when_idle 1 lmp -in in.melt -log none </dev/null >"$out" 2>"$out.err" ||
    die "lmp failed ($(head -c 300 "$out.err"))"
  # the thermo block, without timings
  awk '/^ *Step /{on=1} /^Loop time/{on=0} on' "$out" >"$out.thermo"
  [[ -s $out.thermo ]] || die "lmp printed no thermo block (see $work/$out)"
}
run plain.txt
run recorded.txt LD_PRELOAD="$lib" CHOREO_RECORD="$work/trace" CHOREO_MODE=mpi
cmp -s plain.txt.thermo recorded.txt.thermo ||
  { diff plain.txt.thermo recorded.txt.thermo >&2 || true; die "recording changed LAMMPS's output"; }
echo "record_replay: thermo output identical with and without recording ($(wc -l <plain.txt.thermo) lines)"

"$choreo" import trace -o melt.goal
sends=$(grep -c ': send ' melt.goal) recvs=$(grep -c ': recv ' melt.goal)
((sends > 0 && sends == recvs)) || die "$sends sends against $recvs receives in melt.goal"

# Per rank, the sum of its calc lines (ns), from the GOAL text.
read -r longest total < <(awk '
  /^rank [0-9]+ \{/ { rank = $2 }
  / calc [0-9]+/ { for (i = 1; i < NF; i++) if ($i == "calc") sum[rank] += $(i + 1) }
  END { for (r in sum) { t += sum[r]; if (sum[r] > m) m = sum[r] } printf "%.0f %.0f\n", m, t }' melt.goal)
free=$("$choreo" sim melt.goal --L 0 --o 0 --g 0 --G 0 --O 0 --json | jq -r .makespan)
costly=$("$choreo" sim melt.goal --json | jq -r .makespan)
echo "record_replay: $sends messages; calc per rank up to $longest ns, $total ns in all; replay makespan $free ns with free messages, $costly ns with LogGOPSim's default costs"
((longest <= free && free <= total)) ||
  die "the free-network makespan $free ns is not between $longest and $total ns"
((costly >= free)) || die "messages with costs made the replay shorter ($costly < $free ns)"
echo "record_replay: OK"
