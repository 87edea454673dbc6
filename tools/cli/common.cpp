#include "cli/common.hpp"

#include <fmt/core.h>

namespace choreo::cli {

void print_json(const nlohmann::json& value) {
  // What is printed may hold a file name or another argument that is not UTF-8: shown with
  // U+FFFD in its place rather than failing the command after its work is done.
  fmt::print("{}\n", value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace choreo::cli
