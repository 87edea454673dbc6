#include "choreo/json_read.hpp"

#include <fmt/format.h>

namespace choreo {

nlohmann::json parse_json(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw invalid_json(e);
  }
}

Error invalid_json(const nlohmann::json::parse_error& error) {
  // nlohmann's message names the line and column; keep only its own words, not the
  // "[json.exception.parse_error.101] " id in front of them.
  const std::string what = error.what();
  const auto colon = what.find("] ");
  return Error(
      fmt::format("invalid JSON: {}", colon == std::string::npos ? what : what.substr(colon + 2)));
}

void check_keys(const nlohmann::json& object, const std::string& path,
                const std::set<std::string>& allowed) {
  for (const auto& [key, value] : object.items())
    if (!allowed.contains(key)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw Error(fmt::format("{}: unknown key \"{}\"; allowed here: {}", path, key, list));
    }
}

}  // namespace choreo
