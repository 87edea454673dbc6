#pragma once
// Part of choreo::validate (private): MPI matches the messages of one channel (source,
// destination, tag) in the order their sends started, to receives in the order they were
// posted. validate pairs them in program order, so it must know that both orders are the
// program's in every run.
#include "choreo/core/schedule.hpp"

namespace choreo::detail {

/// Throws choreo::Error, naming the two ops and the fix, unless on every rank each send to
/// one (destination, tag) starts after the earlier ones in program order, and each receive
/// from one (source, tag) is posted after the earlier ones, whatever the timing. Expects ids
/// and dependencies already checked (unique, existing).
void check_channel_order(const Schedule& schedule);

}  // namespace choreo::detail
