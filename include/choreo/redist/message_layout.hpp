#pragma once
// Where a message's elements are in one rank's memory: a list of sections (each a Cartesian
// product of local triplets, first dimension fastest) in the canonical element order of
// rank_plan.hpp, and the contiguous runs they make. Both the MPI datatypes and the pack and
// unpack loops are built from this, so both data paths move the same elements in the same
// order.
#include <cstdint>
#include <vector>

#include "choreo/redist/rank_plan.hpp"

namespace choreo::redist {

/// A product of local triplets, one list per dimension, first dimension fastest.
struct LocalSection {
  std::vector<std::vector<LocalTriplet>> dims;
  std::int64_t elements() const;
};

/// The sections of message `m` of `side` in my memory, in the canonical order, cut to the
/// plan's region (a trapezoid becomes a section per column where the diagonal crosses the
/// message's rows, and one for each run of whole columns).
std::vector<LocalSection> message_sections(const RankPlan& plan, const RankSide& side,
                                           const PeerMessage& m);

/// Elements of the message in the region (as PeerMessage::elements).
std::int64_t region_elements(const RankPlan& plan, const RankSide& side, const PeerMessage& m);

/// `count` elements from `offset`, `stride` apart (offsets and strides in elements).
struct Run {
  std::int64_t offset = 0;
  std::int64_t stride = 1;
  std::int64_t count = 0;
};

/// Walks the runs of a section list in element order, joining runs that continue one another
/// in memory (two columns that follow each other make one run). No allocation per run.
class RunCursor {
 public:
  explicit RunCursor(const std::vector<LocalSection>& sections);
  /// The next run; false after the last.
  bool next(Run& run);

 private:
  bool raw(Run& run);

  const std::vector<LocalSection>* sections_;
  std::size_t section_ = 0;
  /// Per dimension above the first: the triplet and the element within it.
  std::vector<std::size_t> triplet_, element_;
  std::size_t inner_ = 0;  ///< the next triplet of dimension 0
  bool started_ = false;
  Run pending_{};
  bool has_pending_ = false;
};

/// What a side of a message looks like in memory, for choosing how to move it.
struct LayoutShape {
  std::int64_t elements = 0;
  std::int64_t runs = 0;    ///< runs after joining (1: contiguous)
  std::int64_t pieces = 0;  ///< the same runs, a strided run counted once (the copy loops' calls)
  std::int64_t offset = 0;  ///< first element's offset (when contiguous: where the run starts)
  bool contiguous() const { return runs == 1; }
};
LayoutShape shape_of(const std::vector<LocalSection>& sections);

/// Copies the elements of `sections` of `from` into `to` one after another (pack), or the
/// reverse (unpack); `element_bytes` per element. Returns the bytes copied.
std::int64_t pack(const std::vector<LocalSection>& sections, const void* from, void* to,
                  std::int64_t element_bytes);
std::int64_t unpack(const std::vector<LocalSection>& sections, const void* from, void* to,
                    std::int64_t element_bytes);
/// Copies the elements of `from_sections` in `from` to the elements of `to_sections` in `to`,
/// both in element order, with no buffer between (a rank's local copy).
void copy_between(const std::vector<LocalSection>& from_sections, const void* from,
                  const std::vector<LocalSection>& to_sections, void* to,
                  std::int64_t element_bytes);
/// True when both lists are one matrix section (two dimensions) of the same shape: then
/// copy_between copies array to array in one pass at the speed of a pack, so a local copy
/// gains nothing from staging through a buffer.
bool matrix_pair(const std::vector<LocalSection>& from_sections,
                 const std::vector<LocalSection>& to_sections);

}  // namespace choreo::redist
