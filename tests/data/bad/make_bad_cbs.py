#!/usr/bin/env python3
"""Writes the bad .cbs files of tests/data/bad from a good one (docs/formats.md, Binary
schedule). usage: make_bad_cbs.py CHOREO  (run from anywhere; writes next to this script)"""
import os, struct, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
with tempfile.TemporaryDirectory() as work:
    good = os.path.join(work, "good.cbs")
    subprocess.run([sys.argv[1], "generate", "allreduce:recdbl:ranks=4:bytes=8", "-o", good],
                   check=True, stdout=subprocess.DEVNULL)
    data = open(good, "rb").read()

ranks, = struct.unpack_from("<I", data, 28)
ops, on_start, on_complete, on_any = struct.unpack_from("<QQQQ", data, 32)
sizes = [4 * (ranks + 1), ops, ops, ops, 4 * ops, 4 * ops, 8 * ops, 4 * ops,
         4 * (ops + 1), 4 * on_start, 4 * (ops + 1), 4 * on_complete,
         4 * (ops + 1) if on_any else 0, 4 * on_any]
names = ["first_op", "kind", "cpu", "nic", "peer", "tag", "amount", "dependency_count",
         "on_start_offset", "on_start", "on_complete_offset", "on_complete", "on_any_offset",
         "on_any"]
offset, at = {}, struct.unpack_from("<I", data, 24)[0]
for name, size in zip(names, sizes):
    offset[name] = at
    at = (at + size + 63) // 64 * 64
assert at == len(data)


def write(name, content):
    open(os.path.join(here, name), "wb").write(content)


# Cut short in the middle of the peer array.
write("cbs_truncated.cbs", data[: offset["peer"] + 8])
# A format version from the future.
future = bytearray(data)
struct.pack_into("<H", future, 12, 2)
write("cbs_future_version.cbs", bytes(future))
# Rank 0's first op (a send) to rank 4 of 4.
peer = bytearray(data)
assert data[offset["kind"]] == 0  # a send
struct.pack_into("<i", peer, offset["peer"], 4)
write("cbs_peer_out_of_range.cbs", bytes(peer))
# The first dependency list entry names an op of the last rank.
cross = bytearray(data)
struct.pack_into("<I", cross, offset["on_complete"], ops - 1)
write("cbs_dependency_across_ranks.cbs", bytes(cross))
