#pragma once
// Relabelling the target grid (the idea of COSTA, Kabic et al. 2021): when the caller may
// choose which rank takes which position of the target grid, choose the assignment that keeps
// the most elements on the rank that already holds them. Element counts between a source rank
// and a target position are products of per-dimension comm-set sizes; the best assignment is a
// linear assignment problem, solved exactly (Hungarian algorithm, O(n^3) for n positions).
#include <cstdint>
#include <vector>

#include "choreo/redist/distribution.hpp"

namespace choreo::redist {

/// The largest target grid relabelled: the n x n weights and the O(n^3) solution are a planning
/// step (a quarter of a second at 512), done once.
inline constexpr int kRelabelMaxPositions = 512;

struct Relabelling {
  /// The rank of every target grid position (position order, as ArrayDistribution::ranks):
  /// a permutation of the target grid's own ranks.
  std::vector<int> ranks;
  std::int64_t elements = 0;     ///< elements in the array
  std::int64_t kept_before = 0;  ///< elements that stay on their rank with the given target
  std::int64_t kept_after = 0;   ///< ... with `ranks`
};

/// The assignment of `to`'s own ranks to its grid positions that keeps the most elements of
/// `from` in place (ties: the given assignment's order). Throws choreo::Error when the
/// distributions are invalid, their shapes differ, or `to` has more than kRelabelMaxPositions
/// positions.
Relabelling best_relabelling(const ArrayDistribution& from, const ArrayDistribution& to);

/// `to` with its positions taken by `relabelling.ranks`.
ArrayDistribution relabelled(ArrayDistribution to, const Relabelling& relabelling);

/// A maximum-weight perfect matching of the n x n matrix `weight` (row-major, any signs):
/// result[row] = its column. The Hungarian algorithm with potentials, O(n^3).
std::vector<int> max_weight_assignment(const std::vector<std::int64_t>& weight, int n);

}  // namespace choreo::redist
