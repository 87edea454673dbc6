#pragma once
// The generator behind bcast_kary_pipeline and bcast_multitree (private).
#include <cstdint>

#include "choreo/sim/compact.hpp"

namespace choreo::coll::detail {

/// `generator` names the public function in error messages.
sim::CompactSchedule pipelined_trees(const char* generator, int ranks, std::int64_t bytes, int root,
                                     int trees, int arity, std::int64_t segment_bytes);

}  // namespace choreo::coll::detail
