// Pipelined broadcast down one k-ary tree: the multitree generator with a single part.
#include "choreo/coll/pipeline.hpp"
#include "pipelined_trees.hpp"

namespace choreo::coll {

CompactSchedule bcast_kary_pipeline(int ranks, std::int64_t bytes, int root, int arity,
                                    std::int64_t segment_bytes) {
  return detail::pipelined_trees("bcast_kary_pipeline", ranks, bytes, root, 1, arity,
                                 segment_bytes);
}

}  // namespace choreo::coll
