#pragma once
// One rank's part of a redistribution, computed by that rank alone: what it sends to whom and
// what it receives from whom, each message as array sections of its own local memory. Time and
// memory are proportional to the rank's own messages and pieces, plus O(P) for the rank map:
// no rank ever lists the other ranks' messages (DESIGN.md, scale rules), so a 4096-rank plan
// takes a rank milliseconds, where make_plan (plan.hpp) lists every rank pair.
//
// What moves is a section of each array (a window: ScaLAPACK's submatrices), optionally only
// its upper or lower trapezoid (p?trmr2d). Per dimension, the indices a source processor shares
// with a target processor come from shared_sets (dim_sets.hpp); a message is the Cartesian
// product of one such set per dimension. Elements travel in one canonical order, the section's
// column-major order (first index fastest), so sender and receiver, each describing only its
// own memory (its own leading dimension, which the other never learns), agree element by
// element.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "choreo/redist/dim_sets.hpp"
#include "choreo/redist/plan.hpp"

namespace choreo::redist {

/// Which rank is the processor at each grid coordinate of one side. O(P) integers.
class GridMap {
 public:
  GridMap() = default;
  /// `procs`: processors along every array dimension (1 for a dimension not distributed);
  /// `ranks`: the rank of every coordinate, first dimension fastest. Throws choreo::Error when
  /// the sizes disagree.
  GridMap(std::vector<int> procs, std::vector<int> ranks);

  int rank_at(std::span<const int> coords) const;
  const std::vector<int>& procs() const { return procs_; }
  std::size_t size() const { return ranks_.size(); }
  const std::vector<int>& ranks() const { return ranks_; }

 private:
  std::vector<int> procs_;
  std::vector<int> ranks_;
};

/// One side (source or target) of a redistribution, as one rank sees it.
struct SideView {
  std::vector<WindowDim> dims;  ///< one per array dimension
  GridMap grid;
  /// This rank's processor along every dimension; empty when the rank is not in this grid.
  std::vector<int> my_coords;
  /// Elements between neighbours along each dimension of this rank's local array: 1, then its
  /// own leading dimension (ScaLAPACK's LLD, which may differ from rank to rank), ...
  std::vector<std::int64_t> my_strides;

  bool holds() const { return !my_coords.empty(); }
};

/// Which part of a 2-D section moves: all of it, or its upper or lower trapezoid as
/// ScaLAPACK's p?trmr2d defines them (the diagonal starts at the top-left corner when the
/// section is wide or square, and ends at the bottom-right one when it is tall or wide,
/// respectively: upper keeps i <= j + max(m - n, 0), lower keeps i >= j - max(n - m, 0)).
enum class Part { All, Upper, Lower };
struct Region {
  Part part = Part::All;
  bool diagonal = true;  ///< false: the diagonal itself stays (DIAG = 'U')
  friend bool operator==(const Region&, const Region&) = default;
};

/// One dimension of my messages: the indices I share with processor `proc` of the other side,
/// in section indices and in my local memory (offsets of this dimension, in elements).
struct DimPart {
  int proc = 0;
  std::vector<Triplet> global;
  std::vector<LocalTriplet> local;  ///< global[k] in my memory
  std::int64_t count = 0;           ///< indices in global
};

/// One message (or my local copy): one DimPart per dimension.
struct PeerMessage {
  int peer = 0;                      ///< the rank at the other end (mine: a local copy)
  std::vector<std::uint32_t> parts;  ///< per dimension, an index into RankSide::dims[d]
  std::int64_t elements = 0;         ///< elements moved (after the region's cut)
};

/// My sends or my receives.
struct RankSide {
  std::vector<std::vector<DimPart>> dims;  ///< per dimension, by processor of the other side
  std::vector<PeerMessage> messages;       ///< by peer rank

  std::int64_t elements() const;
};

struct RankPlan {
  int rank = 0;
  std::vector<std::int64_t> extent;  ///< the section's extent per dimension
  Region region;
  RankSide sends;           ///< empty when the rank is not in the source grid
  RankSide receives;        ///< empty when the rank is not in the target grid
  std::int64_t pieces = 0;  ///< intersections computed: the planning work

  /// Bytes this plan holds (its vectors' capacity): the memory a rank pays for its plan.
  std::int64_t bytes() const;
  /// The local copy in sends (nullptr when the rank keeps nothing).
  const PeerMessage* local_send() const;
  const PeerMessage* local_receive() const;
};

/// Rank `rank`'s plan: from `from` to `to`, a section of `extent` (equal on both sides),
/// `region` of it. Throws choreo::Error naming the problem: dimensions that differ, a negative
/// extent, a window that leaves its array, a trapezoid of other than 2 dimensions.
RankPlan plan_rank(const SideView& from, const SideView& to, std::vector<std::int64_t> extent,
                   Region region, int rank);

/// A whole-array distribution (plan.hpp's) as rank `rank` sees it: window = the whole array,
/// strides from dist.layout. O(P).
SideView side_view(const ArrayDistribution& dist, int rank);

/// Rank `rank`'s plan of a whole-array redistribution (both distributions validated, shapes
/// equal, as make_plan requires).
RankPlan plan_rank(const ArrayDistribution& from, const ArrayDistribution& to, int rank);

/// A table of the plan, for `choreo redist plan --rank R`: each message with its peer, its
/// elements and the triplets per dimension (at most `show` per dimension).
std::string to_text(const RankPlan& plan, std::int64_t element_bytes, int show);

}  // namespace choreo::redist
