#pragma once
// Independent helpers for the redistribution tests: a seeded generator and the elements of
// triplets, written by enumeration so that nothing here shares code with the library's
// closed forms.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "choreo/redist/triplet.hpp"

namespace choreo::redist::testing {

/// Deterministic across standard libraries (no std::uniform_int_distribution).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in [lo, hi].
  std::int64_t in(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(engine_() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  /// Uniform in [lo, hi], for counts and ranks.
  int pick(int lo, int hi) { return static_cast<int>(in(std::int64_t{lo}, std::int64_t{hi})); }
  bool chance(int percent) { return pick(0, 99) < percent; }

 private:
  std::mt19937_64 engine_;
};

/// The elements of a triplet, walked one step at a time.
inline std::vector<std::int64_t> elements_of(const Triplet& t) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = t.lower; i <= t.upper; i += t.stride) out.push_back(i);
  return out;
}

/// The elements of several triplets, sorted, duplicates kept (so overlaps show).
inline std::vector<std::int64_t> elements_of(const std::vector<Triplet>& triplets) {
  std::vector<std::int64_t> out;
  for (const Triplet& t : triplets) {
    const std::vector<std::int64_t> part = elements_of(t);
    out.insert(out.end(), part.begin(), part.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// True when t is in canonical form: upper reached by the stride, single elements with
/// stride 1.
inline bool canonical(const Triplet& t) {
  if (t.stride < 1 || t.upper < t.lower) return false;
  if ((t.upper - t.lower) % t.stride != 0) return false;
  return t.upper != t.lower || t.stride == 1;
}

}  // namespace choreo::redist::testing
