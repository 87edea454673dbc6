#pragma once
// Redistribution cases of the MPI tests, written as the command line writes them.
#include <fmt/format.h>

#include <string>

#include "choreo/redist/distribution.hpp"

namespace choreo::redist::testing {

struct NamedCase {
  int ranks;  ///< the communicator size the case needs (at least, or exactly: the test says)
  const char* shape;
  const char* from;
  const char* to;
  bool exact = false;  ///< run on exactly `ranks` ranks (a large case: once is enough)
};

struct ParsedCase {
  std::string name;
  ArrayDistribution from, to;
};

inline ParsedCase parse_case(const NamedCase& c, int comm_size) {
  const std::vector<std::int64_t> shape = parse_shape(c.shape);
  return {fmt::format("{} {} -> {}", c.shape, c.from, c.to),
          parse_distribution(c.from, shape, comm_size), parse_distribution(c.to, shape, comm_size)};
}

}  // namespace choreo::redist::testing
