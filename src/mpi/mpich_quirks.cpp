#include "mpich_quirks.hpp"

#include <algorithm>
#include <string>

#include "timed_runs.hpp"

namespace choreo::mpi::detail {

std::string_view mpich_version(std::string_view library_version) {
  constexpr std::string_view kPrefix = "MPICH Version:";
  if (!library_version.starts_with(kPrefix)) return {};
  library_version.remove_prefix(kPrefix.size());
  library_version.remove_prefix(
      std::min(library_version.find_first_not_of(" \t"), library_version.size()));
  return library_version;
}

bool library_persistent_collectives_broken() {
  static const bool broken = [] {
    const std::string text = library_version();
    return mpich_version(text).starts_with("4.0");
  }();
  return broken;
}

}  // namespace choreo::mpi::detail
