#pragma once
// Private to choreo: runs a reader and prefixes any choreo::Error it throws with the file's
// path, so a message names the file it is about ("app.goal: line 3: ...").
#include <fmt/format.h>

#include <filesystem>
#include <utility>

#include "choreo/core/error.hpp"

namespace choreo::detail {

template <typename F>
auto in_file(const std::filesystem::path& path, F&& body) {
  try {
    return std::forward<F>(body)();
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path.string(), e.what()));
  }
}

}  // namespace choreo::detail
