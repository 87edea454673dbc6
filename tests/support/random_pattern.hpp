#pragma once
// Random simple digraphs for scheduler tests, and the bound their plans are held to.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "choreo/core/pattern.hpp"

namespace choreo::test {

/// Each ordered pair (s, d), s != d, kept with probability `density`, in shuffled order.
inline Pattern random_pattern(std::mt19937_64& rng, int ranks, double density,
                              std::int64_t bytes = 1024) {
  Pattern p{ranks, {}};
  std::bernoulli_distribution keep(density);
  for (int s = 0; s < ranks; ++s)
    for (int d = 0; d < ranks; ++d)
      if (s != d && keep(rng)) p.messages.push_back({s, d, bytes});
  std::shuffle(p.messages.begin(), p.messages.end(), rng);
  return p;
}

/// The largest in- or out-degree, counted here: no contention-free plan has fewer slots.
inline int degree_bound(const Pattern& p) {
  std::vector<int> out(static_cast<std::size_t>(p.ranks)), in(out);
  int d = 0;
  for (const auto& m : p.messages) {
    d = std::max(d, ++out[static_cast<std::size_t>(m.src)]);
    d = std::max(d, ++in[static_cast<std::size_t>(m.dst)]);
  }
  return d;
}

}  // namespace choreo::test
