#pragma once
// GOAL, the schedule language of LogGOPSim. choreo writes plain GOAL that LogGOPSim's
// txt2bin accepts; what GOAL cannot say (delay, copy, slots, buffer regions) travels in
// `// @choreo ...` comment lines that LogGOPSim skips. See docs/formats.md.
#include <string>

#include "choreo/core/schedule.hpp"

namespace choreo {

/// Parses GOAL text; errors name the line ("line 12: ...").
Schedule schedule_from_goal(const std::string& text);
std::string schedule_to_goal(const Schedule& schedule);

}  // namespace choreo
