#pragma once
// Schedule files read straight into the simulator's compact form. GOAL text streams into it
// block by block, with no Schedule and no per-op heap allocation in between, and the pages of
// a mapped file are given back as they are read: a file of any size costs the compact form
// plus one rank block. JSON goes through a Schedule.
#include <filesystem>
#include <string>
#include <string_view>

#include "choreo/core/compact_schedule.hpp"

namespace choreo::sim {

struct LoadedSchedule {
  CompactSchedule schedule;
  std::string algorithm;  ///< the name the file records ("" when none)
};

/// GOAL text in the compact form: the same ops and dependencies as compact(schedule_from_goal
/// (text)), op handles being program positions. Errors name the line, or the rank and op.
LoadedSchedule compact_from_goal(std::string_view text);

/// Reads a .goal, .json or .cbs schedule file (a .cbs is mapped: load_binary, which checks
/// its structure); errors are prefixed with the path. The schedule is
/// not validated (see choreo::sim::validate).
LoadedSchedule load_compact(const std::filesystem::path& path);

}  // namespace choreo::sim
