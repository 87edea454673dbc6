#pragma once
// A redistribution plan (paper 002, sec. 3): for every (source rank, target rank) the array
// sections that move, in global indices and in both ranks' local memory, ready to become MPI
// derived datatypes that send array to array without pack buffers.
//
// The elements that source rank s sends to target rank t are, dimension by dimension, the
// indices processor coordinate s_d sends to t_d, so they are the Cartesian product of one
// triplet list per dimension (sections(): one section per choice of a triplet in every
// dimension, first dimension fastest). A triplet of global indices held by one processor is a
// progression in its local indices too, so each global triplet has one local triplet per side.
#include <cstdint>
#include <vector>

#include "choreo/redist/comm_sets.hpp"
#include "choreo/redist/distribution.hpp"

namespace choreo::redist {

/// Offsets into a rank's flat local array, in elements: start, start + stride, ... (count).
struct LocalTriplet {
  std::int64_t start = 0;
  std::int64_t stride = 1;
  std::int64_t count = 0;
  friend bool operator==(const LocalTriplet&, const LocalTriplet&) = default;
};

/// One dimension of a rank pair's transfer: global triplets and, in the same order, where they
/// are in the source's and the target's local arrays (offsets along this dimension: multiples
/// of that dimension's local element stride).
struct DimTransfer {
  std::vector<Triplet> global;
  std::vector<LocalTriplet> source_local;
  std::vector<LocalTriplet> target_local;
};

struct Transfer {
  int source_rank = 0;
  int target_rank = 0;
  std::vector<DimTransfer> dims;  ///< one per array dimension, none empty
  std::int64_t elements = 0;      ///< product over dimensions of the indices moved

  /// The rank keeps these elements: a local copy, not a message.
  bool local_copy() const { return source_rank == target_rank; }
  /// How many sections (products of one triplet per dimension) make it up.
  std::int64_t section_count() const;
};

/// One array section: a triplet per dimension, globally and in both local arrays.
struct Section {
  std::vector<Triplet> global;
  std::vector<LocalTriplet> source_local;
  std::vector<LocalTriplet> target_local;
};

struct PlanTotals {
  std::int64_t messages = 0;          ///< transfers between different ranks
  std::int64_t message_elements = 0;  ///< elements in them
  std::int64_t local_copies = 0;      ///< transfers a rank makes to itself
  std::int64_t copy_elements = 0;     ///< elements in them
  std::int64_t sections = 0;          ///< sections over all transfers
};

struct Plan {
  ArrayDistribution from;
  ArrayDistribution to;
  std::vector<DimCommSets> dims;  ///< the comm sets of every dimension
  /// Every non-empty transfer, ordered by (source rank, target rank).
  std::vector<Transfer> transfers;

  PlanTotals totals() const;
  /// The transfers a rank takes part in as the source (its sends and its local copy) or as
  /// the target (its receives and its local copy), in plan order.
  std::vector<const Transfer*> sends_of(int rank) const;
  std::vector<const Transfer*> receives_of(int rank) const;
};

/// Validates both distributions (and that their shapes agree), computes every dimension's
/// comm sets with `options`, and combines them for every pair of grid positions. Throws
/// choreo::Error.
Plan make_plan(const ArrayDistribution& from, const ArrayDistribution& to,
               const CommSetOptions& options = {});

/// The Cartesian product of a transfer's dimensions, first dimension fastest.
std::vector<Section> sections(const Transfer& transfer);

}  // namespace choreo::redist
