// The reduce-scatter plan: the ring's first half (coll::detail::reduce_scatter_ring_steps),
// one rank's only, over blocks of any sizes in rank order.
#include <fmt/format.h>

#include <utility>
#include <vector>

#include "../coll/allreduce_rank_programs.hpp"
#include "choreo/core/error.hpp"
#include "plan_builder.hpp"
#include "plans.hpp"

namespace choreo::persist::detail {

namespace {

/// The ring leaves rank r holding ring chunk r + 1; ring chunk c is therefore block c - 1, so
/// that rank r ends with its own block r.
std::int64_t block_of_chunk(std::int64_t chunk, int ranks) { return (chunk - 1 + ranks) % ranks; }

struct RingChunks {
  const std::vector<std::int64_t>* counts;
  int ranks;
  std::int64_t chunk(std::int64_t c) const {
    return (*counts)[static_cast<std::size_t>(block_of_chunk(c, ranks))];
  }
};

}  // namespace

Plan reduce_scatter_plan(const std::vector<std::int64_t>& counts, int element_size, bool in_place,
                         int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks || element_size < 1 ||
      counts.size() != static_cast<std::size_t>(ranks))
    throw Error(fmt::format("reduce_scatter:ring: no plan for rank {} of {} ranks with {} counts",
                            rank, ranks, counts.size()));
  std::vector<std::int64_t> first(counts.size() + 1, 0);  // each block's first element
  for (std::size_t b = 0; b < counts.size(); ++b) first[b + 1] = first[b] + counts[b];
  const BufferId input = in_place ? BufferId::User : BufferId::Send;
  // Step s sends ring chunk r - s (the input's at s = 0, else reduced in scratch by step s-1)
  // and receives ring chunk r - s - 1 into scratch, at the block's own offset in the vector.
  const Placer place = [=](const MessageOp& message) {
    const bool send = message.kind == CommandKind::Send;
    const std::int64_t chunk =
        ((rank - std::int64_t{message.tag} - (send ? 0 : 1)) % ranks + ranks) % ranks;
    const std::int64_t offset =
        first[static_cast<std::size_t>(block_of_chunk(chunk, ranks))] * element_size;
    return Place{send && message.tag == 0 ? input : BufferId::Scratch, offset};
  };
  PlanBuilder builder("reduce_scatter:ring", element_size, place);
  coll::detail::Frontier order;
  coll::detail::reduce_scatter_ring_steps(builder, order, ranks, rank, RingChunks{&counts, ranks},
                                          first.back(), 0, [](std::int64_t s) { return s; });
  // The own block, reduced in scratch (one rank: the input's), goes to recvbuf's start once
  // every command that reads the input is done (in place, the input is recvbuf).
  const std::int64_t mine = counts[static_cast<std::size_t>(rank)] * element_size;
  const std::int64_t own = first[static_cast<std::size_t>(rank)] * element_size;
  if (mine > 0 && !(ranks == 1 && in_place)) {
    const auto before = static_cast<std::uint32_t>(builder.commands().size());
    const std::uint32_t copy = builder.copy(Place{ranks > 1 ? BufferId::Scratch : input, own},
                                            Place{BufferId::User, 0}, mine);
    for (std::uint32_t op = 0; op < before; ++op) builder.requires_completed(copy, op);
  }
  Plan plan = std::move(builder).finish();
  // A reduction adds the input's block into what arrived (MPI_Reduce_local(in, inout): the op
  // is commutative), where the other collectives add the arrival into the user buffer.
  for (Command& command : plan.commands)
    if (command.kind == CommandKind::Reduce) {
      command.data = command.source;
      command.source = Place{input, command.source.offset};
    }
  plan.scratch_bytes = ranks > 1 ? first.back() * element_size : 0;
  return plan;
}

}  // namespace choreo::persist::detail
