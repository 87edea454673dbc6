# LogGOPSim, the peer simulator, for side-by-side runs (sourced by bench/sim_vs_loggopsim.sh,
# bench/sim_scale.sh and tests/cli/loggopsim_equal.sh).
#
# loggopsim_find DIR: sets $lgs to a directory holding txt2bin, LogGOPSim and LogGOPSim_stable:
# DIR when it has them already; else builds them into DIR with $LOGGOPSIM_BUILD (default: the
# anchor snapshot's build_loggopsim.sh beside the repository, ../shared/anchors) and reuses
# them on later runs. Returns 77 when there is no build script, 1 when the build fails (its
# log's tail on stderr). The build script starts with rm -rf DIR, so a DIR holding anything
# but an earlier build is refused.

loggopsim_has() { [[ -x $1/txt2bin && -x $1/LogGOPSim && -x $1/LogGOPSim_stable ]]; }

loggopsim_find() {
  local dir=$1 repo build t0
  lgs=$dir
  loggopsim_has "$dir" && return 0
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  build=${LOGGOPSIM_BUILD:-$(cd "$repo/.." && pwd)/shared/anchors/build_loggopsim.sh}
  if [[ ! -f $build ]]; then
    echo "loggopsim: no LogGOPSim in $dir and no build script $build (set LOGGOPSIM_BUILD to the anchors' build_loggopsim.sh, or point at a built LogGOPSim)" >&2
    return 77
  fi
  if [[ -d $dir && -n $(ls -A "$dir") && ! -d $dir/src/LogGOPSim ]]; then
    echo "loggopsim: $dir lacks txt2bin/LogGOPSim/LogGOPSim_stable and holds other files; not building into it" >&2
    return 1
  fi
  mkdir -p "$(dirname "$dir")"
  echo "loggopsim: building LogGOPSim into $dir with $build (once; reused while the binaries exist)" >&2
  t0=$EPOCHREALTIME
  if ! bash "$build" "$dir" >"$dir.build.log" 2>&1; then
    tail -20 "$dir.build.log" >&2
    echo "loggopsim: building LogGOPSim failed (log: $dir.build.log)" >&2
    return 1
  fi
  echo "loggopsim: built in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b - a}') s" >&2
}
