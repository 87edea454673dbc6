#pragma once
// What a simulation did, op by op, for people and tools: a CSV of every op's start and end,
// and a Chrome trace (JSON; opens in Perfetto or chrome://tracing) with one track per rank.
#include <string>

#include "choreo/sim/compact.hpp"
#include "choreo/sim/engine.hpp"

namespace choreo::sim {

/// rank,op,kind,peer,tag,amount,start_ns,end_ns — one line per op. Needs record_ops.
std::string ops_csv(const CompactSchedule& schedule, const SimResult& result);

/// Chrome trace events: every op a complete ("X") event on its rank's track, in
/// microseconds as the format wants. Needs record_ops.
std::string chrome_trace(const CompactSchedule& schedule, const SimResult& result);

}  // namespace choreo::sim
