#pragma once
// Communication sets of one array dimension (paper 002, sec. 2): which global indices each
// source processor sends to each target processor when a dimension's distribution changes.
//
// A dimension's distribution is a set of (triplet, processor) pairs (index_sets); the comm
// sets come from intersecting source triplets with target triplets. Two reductions shrink
// those sets before intersecting, and the results are expanded afterwards:
//  (1) r = gcd(m1, m2): when r is one of the block sizes, count in units of r indices, so
//      that side's block size becomes 1 (block(8) -> cyclic(4) is computed as block(2) ->
//      cyclic(1)); a unit is r indices with the same owners on both sides.
//  (2) the owners repeat every L = lcm(m1 p1, m2 p2) indices: when L < N compute on [0, L)
//      only and repeat the result N / L times.
// Both are switchable so that benchmarks can compare with and without them.
#include <cstdint>
#include <vector>

#include "choreo/redist/distribution.hpp"
#include "choreo/redist/triplet.hpp"

namespace choreo::redist {

/// The paper's S: dimension `dim` as (triplet, processor) pairs, ascending. One triplet per
/// processor when the block size is 1 ([q : N-1 : p]) or there is one processor ([0 : N-1 : 1]);
/// otherwise one per block, in block order.
std::vector<OwnedTriplet> index_sets(const BlockCyclicDim& dim);

struct CommSetOptions {
  bool reduce_by_gcd = true;     ///< reduction (1)
  bool reduce_to_period = true;  ///< reduction (2)
  /// Intersect every source triplet with every target triplet, as the paper's loop does;
  /// false: only with the target triplets whose range can overlap it (same result, work in
  /// proportion to the result).
  bool all_pairs = false;
};

/// The comm sets of one dimension, with what it took to compute them.
struct DimCommSets {
  int source_procs = 1;
  int target_procs = 1;
  /// sets[from * target_procs + to]: the global indices source processor `from` sends to
  /// target processor `to`, compact (see compact()) and ascending.
  std::vector<std::vector<Triplet>> sets;
  std::int64_t gcd_unit = 1;       ///< r when reduction (1) was applied, else 1
  std::int64_t period = 0;         ///< L (in units of r) when reduction (2) was applied, else 0
  std::int64_t intersections = 0;  ///< triplet pairs intersected: the work the reductions save

  const std::vector<Triplet>& between(int from, int to) const;
  /// Where (from, to) is in `sets`.
  std::size_t index(int from, int to) const;
};

/// Throws choreo::Error when the two dimensions have different extents.
DimCommSets comm_sets(const BlockCyclicDim& from, const BlockCyclicDim& to,
                      const CommSetOptions& options = {});

/// C_s of source processor `from`: what it sends, each triplet with its target processor.
std::vector<OwnedTriplet> send_set(const DimCommSets& sets, int from);
/// C_r of target processor `to`: what it receives, each triplet with its source processor.
std::vector<OwnedTriplet> receive_set(const DimCommSets& sets, int to);

}  // namespace choreo::redist
