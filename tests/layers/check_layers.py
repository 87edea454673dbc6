#!/usr/bin/env python3
"""Checks that choreo's dependencies point one way, by reading the include graph.

Every file under src/<module>/ and include/choreo/ belongs to a module, and every module to a
layer (docs/architecture.md):

    tools -> adoption layer -> selection -> MPI engines -> generators/schedulers
      -> models and the simulator (the predictors) -> topologies -> core

(LAYERS below gives each module's number).

A file may include its own module and any module of a lower layer. An include that goes up, or
across to another module of the same layer, is a violation. The violations the code has today
are listed in known_violations.txt, each with the reason it is still there; the test fails on
a new one (fix it, or list it with a reason) and on a listed one that is gone (strike it, so
the list only shrinks).

usage: check_layers.py SOURCE_DIR [--print]
"""
import re
import sys
from pathlib import Path

LAYERS = {
    "core": 0,  # the schedule IR (Schedule, CompactSchedule, SlotPlan), patterns, formats
    "topo": 1,  # networks (NetworkSpec, placements, routes) and SimGrid platforms
    "model": 2,  # analytic cost models and the machine profiles they are fitted to
    "sim": 2,  # engine and predictor: the discrete-event simulator (the schedulers' too)
    "coll": 3,  # collective generators
    "sched": 3,  # irregular-exchange schedulers, the exchange plan (predicts by model or sim)
    "jitter": 3,  # the noise study's allreduce stages (no MPI)
    "replay": 4,  # traces turned into schedules (expands collectives by coll/)
    "mpi": 4,  # engine: the MPI executor and the MPI helpers the other engines share
    "persist": 5,  # engine: persistent collectives (on mpi/)
    "redist": 5,  # engine: array redistribution (on mpi/)
    "select": 6,  # selection, profile quality, rule export (drives the engines' models)
    "calibrate": 7,  # machine calibration under MPI (fills model/'s profiles)
    "intercept": 7,  # adoption layer: the PMPI library and its settings
    "scalapack": 8,  # adoption layer: ScaLAPACK's routines (on intercept's settings)
    "capi": 8,  # adoption layer: the C API
    "tools": 9,  # the command lines
}

# The public headers at the top of include/choreo/: the C APIs (every C++ header is in the folder
# of its module).
TOP_LEVEL_HEADERS = {
    "choreo.h": "capi",
    "mpi_persistent.h": "intercept",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of_header(path):
    """The module of a public header, given as it is included: "choreo/x.hpp" or
    "choreo/<module>/x.hpp"."""
    parts = path.split("/")
    if parts[0] != "choreo":
        return None
    if len(parts) == 2:
        return TOP_LEVEL_HEADERS.get(parts[1])
    return parts[1] if parts[1] in LAYERS else None


def module_of_file(root, file):
    rel = file.relative_to(root).parts
    if rel[0] == "src":
        return rel[1] if rel[1] in LAYERS else None
    if rel[0] == "tools":
        return "tools"
    if rel[0] == "include":
        return module_of_header("/".join(rel[1:]))
    return None


def edges(root):
    """(file, including module, included module, include text) for every include of choreo's
    own code in src/, include/ and tools/."""
    files = [
        f
        for top in ("src", "include", "tools")
        for f in (root / top).rglob("*")
        if f.suffix in (".hpp", ".h", ".cpp", ".inc")
    ]
    for file in sorted(files):
        mine = module_of_file(root, file)
        if mine is None:
            continue
        for target in INCLUDE.findall(file.read_text(errors="replace")):
            theirs = module_of_header(target)
            if theirs is None:
                resolved = (file.parent / target).resolve()
                try:
                    theirs = module_of_file(root, resolved)
                except ValueError:  # outside the tree
                    continue
            if theirs is None or theirs == mine:
                continue
            yield file.relative_to(root).as_posix(), mine, theirs, target


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = Path(sys.argv[1]).resolve()
    here = Path(__file__).resolve().parent
    known = set()
    for line in (here / "known_violations.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            known.add(line)
    found = set()
    for file, mine, theirs, target in edges(root):
        if LAYERS[theirs] >= LAYERS[mine]:
            found.add(f"{file} -> {target}")
    if "--print" in sys.argv:
        for v in sorted(found):
            print(v)
        return 0
    new = sorted(found - known)
    gone = sorted(known - found)
    for v in new:
        print(f"layers: {v} includes a module of the same or a higher layer: include only "
              "lower layers (docs/architecture.md), or list it in "
              "tests/layers/known_violations.txt with the reason", file=sys.stderr)
    for v in gone:
        print(f"layers: {v} is listed in tests/layers/known_violations.txt but no longer "
              "happens: strike it from the list", file=sys.stderr)
    print(f"layers: {len(found)} upward or sideways includes, all listed"
          if not new and not gone else
          f"layers: {len(new)} new, {len(gone)} gone")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
