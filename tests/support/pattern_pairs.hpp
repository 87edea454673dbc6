#pragma once
// Who sends to whom in a pattern, as a set: for comparing patterns in tests.
#include <set>
#include <utility>

#include "choreo/core/pattern.hpp"

namespace choreo::test {

using Pair = std::pair<int, int>;

inline std::set<Pair> pairs(const Pattern& p) {
  std::set<Pair> out;
  for (const auto& m : p.messages) out.insert({m.src, m.dst});
  return out;
}

}  // namespace choreo::test
