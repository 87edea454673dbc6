// The direct neighbourhood exchange's plan: one receive per in-neighbour, one send per
// out-neighbour, none waiting for another.
#include "plan_builder.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

Plan neighbor_alltoallv_plan(const std::vector<NeighborMessage>& receives,
                             const std::vector<NeighborMessage>& sends) {
  // The builder places each message as it is added: `next` is the place of the one being added.
  Place next;
  PlanBuilder builder("neighbor_alltoallv:direct", 1, [&](const MessageOp&) { return next; });
  // Receives first: the driver starts ready commands in program order, so every receive is
  // posted before this rank's sends, and each edge's messages keep their list order.
  for (const NeighborMessage& message : receives) {
    if (message.bytes == 0) continue;
    next = {BufferId::User, message.offset};
    builder.recv(message.peer, message.bytes, message.tag);
  }
  for (const NeighborMessage& message : sends) {
    if (message.bytes == 0) continue;
    next = {BufferId::Send, message.offset};
    builder.send(message.peer, message.bytes, message.tag);
  }
  return std::move(builder).finish();
}

}  // namespace choreo::persist::detail
