#pragma once
// The promises about a schedule a reader accepted (docs/formats.md): both writers' output
// reads back to the same schedule, and what validate accepts the simulator finishes.
#include "choreo/core/schedule.hpp"

namespace choreo::fuzz {

void check_schedule(const Schedule& schedule);

}  // namespace choreo::fuzz
