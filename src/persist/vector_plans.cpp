// Plans of the irregular (v) collectives: gatherv and scatterv straight between the root and
// every rank (MPICH's and Open MPI's linear algorithms: the root posts a message per rank), and
// allgatherv round the ring with each rank's own block size. Blocks sit where the caller's
// displacements put them (bytes here: counts and displacements times the element size).
#include <fmt/format.h>

#include "choreo/core/error.hpp"
#include "plan_builder.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

namespace {

void check_blocks(const char* name, const VectorBlocks& blocks, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks || blocks.bytes.size() != blocks.offsets.size() ||
      (!blocks.bytes.empty() && blocks.bytes.size() != static_cast<std::size_t>(ranks)))
    throw Error(fmt::format("{}: no plan for rank {} of {} ranks with {} blocks", name, rank, ranks,
                            blocks.bytes.size()));
}

std::int64_t at(const std::vector<std::int64_t>& values, int rank) {
  return values[static_cast<std::size_t>(rank)];
}

}  // namespace

Plan gatherv_plan(const VectorBlocks& blocks, std::int64_t my_bytes, int root, int ranks, int rank,
                  bool gather) {
  const char* name = gather ? "gatherv:linear" : "scatterv:linear";
  if (rank == root) check_blocks(name, blocks, ranks, rank);
  // The root's own side of each message is its block in the user buffer (gatherv: recvbuf)
  // or the send buffer (scatterv: sendbuf); the other ranks move their one block.
  const BufferId root_side = gather ? BufferId::User : BufferId::Send;
  PlanBuilder builder(name, 1, [&](const MessageOp& message) {
    if (rank != root) return Place{gather ? BufferId::Send : BufferId::User, 0};
    return Place{root_side, at(blocks.offsets, message.peer)};
  });
  if (rank == root) {
    for (int r = 0; r < ranks; ++r) {
      if (r == root || at(blocks.bytes, r) == 0) continue;
      if (gather)
        builder.recv(r, at(blocks.bytes, r), 0);
      else
        builder.send(r, at(blocks.bytes, r), 0);
    }
    // The root's own block (skipped for MPI_IN_PLACE).
    const Place own_block{root_side, at(blocks.offsets, root)};
    builder.copy(gather ? Place{BufferId::Send, 0} : own_block,
                 gather ? own_block : Place{BufferId::User, 0}, at(blocks.bytes, root));
  } else if (my_bytes > 0) {
    if (gather)
      builder.send(root, my_bytes, 0);
    else
      builder.recv(root, my_bytes, 0);
  }
  return std::move(builder).finish();
}

Plan allgatherv_plan(const VectorBlocks& blocks, int ranks, int rank) {
  constexpr const char* kName = "allgatherv:ring";
  check_blocks(kName, blocks, ranks, rank);
  const auto block_at = [&](int step, bool send) {  // step s: send block r-s, receive r-s-1
    return ((rank - step - (send ? 0 : 1)) % ranks + ranks) % ranks;
  };
  PlanBuilder builder(kName, 1, [&](const MessageOp& message) {
    return Place{BufferId::User,
                 at(blocks.offsets, block_at(message.tag, message.kind == CommandKind::Send))};
  });
  const int right = (rank + 1) % ranks, left = (rank + ranks - 1) % ranks;
  // The own block first (skipped for MPI_IN_PLACE); the first send waits for it.
  std::uint32_t previous = builder.copy(
      {BufferId::Send, 0}, {BufferId::User, at(blocks.offsets, rank)}, at(blocks.bytes, rank));
  for (int step = 0; step + 1 < ranks; ++step) {
    const std::uint32_t send = builder.send(right, at(blocks.bytes, block_at(step, true)), step);
    const std::uint32_t recv = builder.recv(left, at(blocks.bytes, block_at(step, false)), step);
    builder.requires_completed(send, previous);  // forwards the block that just arrived
    if (step > 0) builder.requires_completed(recv, previous);  // one receive outstanding
    previous = recv;
  }
  return std::move(builder).finish();
}

}  // namespace choreo::persist::detail
