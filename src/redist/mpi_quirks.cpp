#include "mpi_quirks.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>

#include "../mpi/mpich_quirks.hpp"
#include "../mpi/timed_runs.hpp"

namespace choreo::redist {
namespace {

/// `text` holds a whole number and nothing else: its value, or -1. (std::regex would do, but
/// GCC 12 warns inside <regex> at -O1, which the asan preset builds with.)
int whole_number(std::string_view text) {
  int value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : -1;
}

}  // namespace

bool packs_wrong_past_512_types(const std::string& library_version) {
  // "MPICH Version: 4.0.2": the bug came with 4.0rc2 and went with 4.0.4 (pmodels/mpich#6341).
  std::string_view v = mpi::detail::mpich_version(library_version);
  if (!v.starts_with("4.0")) return false;
  v.remove_prefix(3);
  if (v.empty()) return true;
  if (v.starts_with(".")) {
    const int patch = whole_number(v.substr(1));
    return patch >= 0 && patch <= 3;
  }
  if (v.starts_with("rc")) return whole_number(v.substr(2)) >= 2;
  return false;
}

bool derived_datatypes_unsafe() {
  static const bool unsafe = packs_wrong_past_512_types(mpi::detail::library_version());
  return unsafe;
}

}  // namespace choreo::redist
