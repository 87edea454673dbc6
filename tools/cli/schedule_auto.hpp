#pragma once
// choreo schedule --algo auto: plan_exchange's candidates, their predictions and its choice.
#include <string>

#include "choreo/pattern.hpp"
#include "choreo/schedule.hpp"
#include "cli/common.hpp"

namespace choreo::cli {

/// Plans `pattern` with plan_exchange(Auto) on the default model or the profile's (when
/// `profile` is not empty), prints the candidates (a table, or JSON with global.json) and
/// returns the kept candidate's schedule.
Schedule schedule_auto(const Pattern& pattern, const std::string& profile, const Global& global);

}  // namespace choreo::cli
