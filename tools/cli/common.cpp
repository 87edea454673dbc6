#include "cli/common.hpp"

#include <fmt/core.h>

namespace choreo::cli {

void print_json(const nlohmann::json& value) { fmt::print("{}\n", value.dump(2)); }

}  // namespace choreo::cli
