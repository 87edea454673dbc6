#pragma once
// JSON spellings of Pattern ("choreo.pattern/1") and Schedule ("choreo.schedule/1").
#include <filesystem>
#include <string>

#include "choreo/core/pattern.hpp"
#include "choreo/core/schedule.hpp"

namespace choreo {

Pattern pattern_from_json(const std::string& text);
std::string pattern_to_json(const Pattern& pattern);

Schedule schedule_from_json(const std::string& text);
std::string schedule_to_json(const Schedule& schedule);

}  // namespace choreo
