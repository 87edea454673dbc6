#pragma once
// Static checks of a Schedule. Each failure throws choreo::Error with one message that
// names the rank, the op and the fix.
#include <cstdint>
#include <vector>

#include "choreo/core/schedule.hpp"

namespace choreo {

/// Where a send's message is received: the matching (rank, op index) pairs.
struct MessageMatch {
  int src_rank = 0;
  std::size_t send_index = 0;  ///< index into programs[src_rank].ops
  int dst_rank = 0;
  std::size_t recv_index = 0;  ///< index into programs[dst_rank].ops
};

/// Checks, in this order: rank count; op fields (peer range, negative size or time, tags,
/// buffer regions); duplicate ids; unknown dependencies; dependency cycles within a rank;
/// message matching (by source, tag and order, MPI's non-overtaking rule; wildcard receives
/// take the earliest compatible unmatched send); size mismatches; and deadlock across ranks
/// (an op that can never start because the message it waits for is sent only after it).
/// A first-of group (Op::requires_any) is met by any one member: it closes a cycle or a
/// deadlock only when all its members are stuck. Returns the matching it found.
std::vector<MessageMatch> validate(const Schedule& schedule);

}  // namespace choreo
