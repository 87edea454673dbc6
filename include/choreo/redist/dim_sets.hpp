#pragma once
// One dimension's comm sets as one processor sees them: the indices it shares with each
// processor of the other side, and nothing about other pairs. This is what lets a rank plan
// its own part of a redistribution in time and memory proportional to what it sends and
// receives (rank_plan.hpp), where comm_sets() computes every processor pair of a dimension.
//
// The moved section is a window: ScaLAPACK's p?gemr2d copies A(IA:IA+M-1, ...) onto
// B(IB:IB+M-1, ...), so index i of the section is index start + i of the whole array on each
// side, and the two sides' blocks need not line up.
#include <cstdint>
#include <vector>

#include "choreo/redist/distribution.hpp"
#include "choreo/redist/triplet.hpp"

namespace choreo::redist {

/// One dimension of one side: the whole array's distribution along it and where the moved
/// section starts. Index i of the section (0 <= i < its extent) is index start + i of the
/// array, held by dist.owner(start + i).
struct WindowDim {
  BlockCyclicDim dist;
  std::int64_t start = 0;

  int owner(std::int64_t i) const { return dist.owner(start + i); }
  std::int64_t local_index(std::int64_t i) const { return dist.local_index(start + i); }
};

/// The section indices one processor shares with one processor of the other side.
struct ProcSet {
  int proc = 0;                  ///< the other side's processor
  std::vector<Triplet> indices;  ///< ascending and canonical (normalize_ascending)
};

/// The indices of [0, extent) that processor `me` of `mine` shares with each processor of
/// `other`, ordered by that processor, empty sets left out. Work and memory are proportional to
/// the pieces found (my blocks cut by the other side's blocks) plus, at most, the other side's
/// processor count. `pieces`, when given, receives how many pieces were intersected.
/// Throws choreo::Error when `me` is not a processor of `mine` or extent is negative.
std::vector<ProcSet> shared_sets(const WindowDim& mine, int me, const WindowDim& other,
                                 std::int64_t extent, std::int64_t* pieces = nullptr);

}  // namespace choreo::redist
