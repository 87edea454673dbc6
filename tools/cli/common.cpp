#include "cli/common.hpp"

#include <fmt/core.h>

#include "choreo/core/binary_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/sim/validate.hpp"

namespace choreo::cli {

void print_json(const nlohmann::json& value) {
  // What is printed may hold a file name or another argument that is not UTF-8: shown with
  // U+FFFD in its place rather than failing the command after its work is done.
  fmt::print("{}\n", value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

bool save_binary_validated(const CompactSchedule& schedule, const std::string& algorithm,
                           const std::string& path) {
  bool valid = true;
  try {
    sim::validate(schedule);
  } catch (const Error& e) {
    valid = false;
    fmt::print(stderr, "note: {} is written without the validated flag: {}\n", path, e.what());
  }
  save_binary(schedule, algorithm, path, valid);
  return valid;
}

}  // namespace choreo::cli
