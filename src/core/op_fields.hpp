#pragma once
// Part of choreo::validate (private): the checks of one op's own fields, shared with the
// simulator's GOAL reader, which builds its compact form without a Schedule.
#include "choreo/schedule.hpp"

namespace choreo::detail {

/// Throws choreo::Error naming rank, op and fix unless the op's peer, tag, size, time, slot,
/// cpu, nic and regions are valid in a schedule of `ranks` ranks.
void check_op_fields(int ranks, int rank, const Op& op);

}  // namespace choreo::detail
