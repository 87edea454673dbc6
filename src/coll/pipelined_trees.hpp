#pragma once
// The generator behind bcast_kary_pipeline and bcast_multitree (private).
#include <cstdint>
#include <vector>

#include "choreo/coll/pipeline.hpp"
#include "choreo/core/compact_schedule.hpp"

namespace choreo::coll::detail {

/// `generator` names the public function in error messages.
CompactSchedule pipelined_trees(const char* generator, int ranks, std::int64_t bytes, int root,
                                int trees, int arity, std::int64_t segment_bytes);

/// Part t of `bytes` pipelined down shapes[t] (all over the same ranks, rooted alike);
/// segment_bytes == 0 takes Hockney's rule for the deepest tree.
CompactSchedule pipelined_trees(const char* generator, std::int64_t bytes,
                                const std::vector<BroadcastTree>& shapes,
                                std::int64_t segment_bytes);

}  // namespace choreo::coll::detail
