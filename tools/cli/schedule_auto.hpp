#pragma once
// choreo schedule --algo auto: plan_exchange's candidates, their predictions and its choice.
#include <cstdint>
#include <optional>
#include <string>

#include "choreo/core/pattern.hpp"
#include "choreo/core/schedule.hpp"
#include "cli/common.hpp"

namespace choreo::cli {

/// LogGP parameters given on the command line (--L, --o, --G), each replacing the default's or
/// the profile's.
struct ModelOverrides {
  std::optional<std::int64_t> L, o;
  std::optional<double> G;
};

/// Plans `pattern` with plan_exchange(Auto) on the default model or the profile's (when
/// `profile` is not empty), with `overrides` applied, prints the candidates (a table, or JSON
/// with global.json) and returns the kept candidate's schedule.
Schedule schedule_auto(const Pattern& pattern, const std::string& profile,
                       const ModelOverrides& overrides, const Global& global);

}  // namespace choreo::cli
