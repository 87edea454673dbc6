#pragma once
// What a simulation did, op by op, for people and tools: a CSV of every op's start and end,
// and a Chrome trace (JSON; opens in Perfetto or chrome://tracing) with a process per rank,
// a track per kind of op and an arrow per message (docs/sim-model.md, Outputs).
#include <span>
#include <string>
#include <vector>

#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/schedule.hpp"
#include "choreo/sim/engine.hpp"

namespace choreo::sim {

/// rank,op,kind,peer,tag,amount,start_ns,end_ns — one line per op. Needs record_ops.
std::string ops_csv(const CompactSchedule& schedule, const SimResult& result);

/// Every op's slot (kNoSlot for none), in the order of compact(schedule)'s ops: the compact
/// form keeps no slots, so a trace takes them from here.
std::vector<int> op_slots(const Schedule& schedule);

/// Chrome trace events, times in microseconds as the format wants (to the ns). Rank R is
/// process "rank R" (pid R + 1); its ops are complete ("X") slices on a thread per kind of
/// op ("send", "recv", "delay", "calc", "copy"), ops of a kind that overlap on extra lanes
/// ("send 2", ...), so slices nest on every thread. A flow ("s" to "f") joins every send to
/// the receive the simulator matched it with. Slices carry their op's arguments: "op" (its
/// index in its rank's program), "bytes", "peer" and "tag" of a message, "bytes" of a copy,
/// "ns" of a delay or calc, "slot" when `slots` (op_slots; empty: none) gives one, and
/// "first_of" (the group's size) for an op with a first-of group. Needs record_ops.
std::string chrome_trace(const CompactSchedule& schedule, const SimResult& result,
                         std::span<const int> slots = {});

}  // namespace choreo::sim
