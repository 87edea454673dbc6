#pragma once
// The checks CompactBuilder and ShapedBuilder make of every op they are given (private): the
// engine indexes hosts by peer and reads amounts as sizes and times, so a schedule that
// skipped validation must fail here with a message, not crash the simulator.
#include <cstddef>
#include <cstdint>

#include "choreo/core/schedule.hpp"

namespace choreo {

/// Throws choreo::Error naming rank `rank`'s op at `position` if it cannot be simulated.
void check_built_op(OpKind kind, int peer, int tag, std::int64_t amount, int cpu, int nic,
                    int ranks, int rank, std::size_t position);

}  // namespace choreo
