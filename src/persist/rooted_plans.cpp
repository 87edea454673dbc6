// Plans of the binomial reduce, gather and scatter and of the dissemination barrier, each rank's
// from its own per-rank program (coll/rooted_rank_programs.hpp), placed in the caller's
// buffers, with the local copies MPI's semantics need around the messages.
#include <fmt/format.h>

#include "../coll/rooted_rank_programs.hpp"
#include "choreo/core/error.hpp"
#include "plan_builder.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

namespace {

void check_rooted(const char* plan, std::int64_t bytes, int root, int ranks, int rank) {
  if (bytes < 0 || ranks < 1 || rank < 0 || rank >= ranks || root < 0 || root >= ranks)
    throw Error(fmt::format("{}: no plan for rank {} of {} ranks, root {}, {} bytes", plan, rank,
                            ranks, root, bytes));
}

/// The first command of a rank's chained program waits for `copy` (its input put in place).
void first_waits_for(PlanBuilder& builder, std::uint32_t copy) {
  if (copy > 0) builder.requires_completed(0, copy);
}

/// Relative block `first` .. first + blocks - 1 in rank order starts at world rank
/// (first + root) % P; where it wraps past P - 1, the part past the end goes to block 0.
struct Rotation {
  std::int64_t world_first, before_wrap;  ///< in blocks
};
Rotation rotation(std::int64_t first, std::int64_t blocks, int root, int ranks) {
  const std::int64_t world_first = (first + root) % ranks;
  return {world_first, std::min(blocks, ranks - world_first)};
}

}  // namespace

Plan reduce_plan(std::int64_t count, int element_size, int root, int ranks, int rank) {
  constexpr const char* kName = "reduce:binomial";
  const std::int64_t bytes = count * element_size;
  check_rooted(kName, bytes, root, ranks, rank);
  const std::int64_t vr = (rank - root + ranks) % ranks;
  const bool is_root = vr == 0;
  const bool leaf = !is_root && coll::detail::binomial_subtree_blocks(vr, ranks) == 1;
  // The accumulator: recvbuf at the root, scratch [0, bytes) at an inner rank; receives land
  // in scratch after it (at 0 on the root).
  const Place accumulator = is_root ? Place{BufferId::User, 0} : Place{BufferId::Scratch, 0};
  const Place arrivals = is_root ? Place{BufferId::Scratch, 0} : Place{BufferId::Scratch, bytes};
  PlanBuilder builder(kName, element_size, [&](const MessageOp& message) {
    if (message.kind == CommandKind::Recv) return arrivals;
    return leaf ? Place{BufferId::Send, 0} : accumulator;
  });
  coll::detail::reduce_binomial_rank(builder, ranks, rank, root, count, 0);
  const auto program = static_cast<std::uint32_t>(builder.commands().size());
  // The own input first (skipped at a root passing MPI_IN_PLACE); on one rank it is all the
  // root does.
  if (!leaf) first_waits_for(builder, builder.copy({BufferId::Send, 0}, accumulator, bytes));
  Plan plan = std::move(builder).finish();
  for (Command& command : plan.commands)
    if (command.kind == CommandKind::Reduce) command.data = accumulator;
  plan.scratch_bytes = leaf || program == 0 ? 0 : (is_root ? bytes : 2 * bytes);
  return plan;
}

namespace {

/// The binomial gather (up) or scatter of blocks of `block_bytes`, placed. An inner rank holds
/// its subtree in scratch in relative order (its own block first); a leaf sends from sendbuf
/// (gather) or receives into recvbuf (scatter). The root reads or writes rank order directly
/// where a child's blocks do not wrap past rank P-1, else through scratch with two copies.
Plan binomial_tree_plan(bool up, std::int64_t block_bytes, int root, int ranks, int rank) {
  const char* name = up ? "gather:binomial" : "scatter:binomial";
  check_rooted(name, block_bytes, root, ranks, rank);
  const std::int64_t vr = (rank - root + ranks) % ranks;
  const bool is_root = vr == 0;
  const std::int64_t subtree = coll::detail::binomial_subtree_blocks(vr, ranks);
  const bool leaf = !is_root && subtree == 1;
  // The user's side of each message: where gather receives (recvbuf) or scatter sends from
  // (sendbuf) at the root.
  const BufferId root_side = up ? BufferId::User : BufferId::Send;
  const auto child_first = [&](const MessageOp& message) {  // the child's first relative block
    const int bit = up ? message.tag : coll::detail::binomial_steps(ranks) - 1 - message.tag;
    return std::int64_t{1} << bit;
  };
  PlanBuilder builder(name, block_bytes, [&](const MessageOp& message) {
    const bool to_child = (message.kind == CommandKind::Recv) == up;
    if (!to_child) {  // the parent link: the whole subtree, in relative order
      if (leaf) return Place{up ? BufferId::Send : BufferId::User, 0};
      return Place{BufferId::Scratch, 0};
    }
    const std::int64_t first = child_first(message);  // relative to this rank
    if (!is_root) return Place{BufferId::Scratch, first * block_bytes};
    const Rotation turn = rotation(first, message.amount, root, ranks);
    if (turn.before_wrap == message.amount) return Place{root_side, turn.world_first * block_bytes};
    return Place{BufferId::Scratch, first * block_bytes};
  });
  coll::detail::binomial_tree_rank(builder, up, ranks, rank, root, block_bytes > 0 ? 1 : 0);
  const std::size_t program = builder.commands().size();
  // The root's own block, between sendbuf and recvbuf (skipped for MPI_IN_PLACE).
  if (is_root)
    builder.copy(up ? Place{BufferId::Send, 0} : Place{BufferId::Send, root * block_bytes},
                 up ? Place{BufferId::User, root * block_bytes} : Place{BufferId::User, 0},
                 block_bytes);
  // An inner rank's own block: into scratch first (gather), out of it after the receive
  // (scatter).
  if (!is_root && !leaf && program > 0) {
    if (up) {
      first_waits_for(builder,
                      builder.copy({BufferId::Send, 0}, {BufferId::Scratch, 0}, block_bytes));
    } else {
      const std::uint32_t copy =
          builder.copy({BufferId::Scratch, 0}, {BufferId::User, 0}, block_bytes);
      builder.requires_completed(copy, 0);  // the parent's message is the first command
    }
  }
  // The root's messages that wrap past rank P-1 go through scratch: after a gather's receive,
  // before a scatter's send.
  if (is_root) {
    for (std::uint32_t i = 0; i < program; ++i) {
      const Command message = builder.commands()[i];
      if (message.data.buffer != BufferId::Scratch) continue;
      const std::int64_t first = message.data.offset / block_bytes;
      const std::int64_t blocks = message.bytes / block_bytes;
      const Rotation turn = rotation(first, blocks, root, ranks);
      const Place in_order[2] = {{root_side, turn.world_first * block_bytes}, {root_side, 0}};
      const Place relative[2] = {message.data,
                                 {BufferId::Scratch, (first + turn.before_wrap) * block_bytes}};
      const std::int64_t part_bytes[2] = {turn.before_wrap * block_bytes,
                                          (blocks - turn.before_wrap) * block_bytes};
      for (int part = 0; part < 2; ++part) {
        if (up) {
          builder.requires_completed(builder.copy(relative[part], in_order[part], part_bytes[part]),
                                     i);
        } else {
          builder.requires_completed(
              i, builder.copy(in_order[part], relative[part], part_bytes[part]));
        }
      }
    }
  }
  Plan plan = std::move(builder).finish();
  plan.scratch_bytes = is_root ? (root == 0 ? 0 : ranks * block_bytes)
                       : leaf  ? 0
                               : subtree * block_bytes;
  return plan;
}

}  // namespace

Plan gather_plan(std::int64_t block_bytes, int root, int ranks, int rank) {
  return binomial_tree_plan(true, block_bytes, root, ranks, rank);
}

Plan scatter_plan(std::int64_t block_bytes, int root, int ranks, int rank) {
  return binomial_tree_plan(false, block_bytes, root, ranks, rank);
}

Plan barrier_plan(int ranks, int rank) {
  check_rooted("barrier:dissemination", 0, 0, ranks, rank);
  PlanBuilder builder("barrier:dissemination", 1, [](const MessageOp&) {
    return Place{BufferId::User, 0};
  });
  coll::detail::barrier_dissemination_rank(builder, ranks, rank);
  return std::move(builder).finish();
}

}  // namespace choreo::persist::detail
