#include "mpi_quirks.hpp"

#include <regex>
#include <string>

#include "../mpi/timed_runs.hpp"

namespace choreo::redist {

bool packs_wrong_past_512_types(const std::string& library_version) {
  // "MPICH Version: 4.0.2": the bug came with 4.0rc2 and went with 4.0.4 (pmodels/mpich#6341).
  static const std::regex affected(R"(^MPICH Version: +4\.0(\.[0-3]|rc[2-9])?$)");
  return std::regex_match(library_version, affected);
}

bool derived_datatypes_unsafe() {
  static const bool unsafe = packs_wrong_past_512_types(mpi::detail::library_version());
  return unsafe;
}

}  // namespace choreo::redist
