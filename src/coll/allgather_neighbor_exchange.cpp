// Neighbour-exchange allgather (Chen et al.; Open MPI's
// ompi_coll_base_allgather_intra_neighborexchange): P/2 steps between alternating neighbours.
#include <fmt/format.h>

#include <limits>

#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kAllgatherNeighborExchangeName = "allgather_neighbor_exchange";
}  // namespace

CompactSchedule allgather_neighbor_exchange(int ranks, std::int64_t bytes_per_rank) {
  detail::check_ranks(kAllgatherNeighborExchangeName, ranks);
  detail::check_non_negative(kAllgatherNeighborExchangeName, "bytes_per_rank", bytes_per_rank);
  if (ranks % 2 != 0)
    throw Error(
        fmt::format("{}: neighbor exchange needs an even number of ranks; use allgather:ring (or "
                    "allgather:bruck) for {} ranks",
                    kAllgatherNeighborExchangeName, ranks));
  if (bytes_per_rank > std::numeric_limits<std::int64_t>::max() / 2)
    throw Error(fmt::format("{}: 2 x {} bytes overflows a 64-bit byte count",
                            kAllgatherNeighborExchangeName, bytes_per_rank));
  const auto p = static_cast<std::uint64_t>(ranks);
  // A send and a receive a step, each requiring the previous step's two.
  const std::uint64_t ops = p * p;
  return detail::build_in_steps(
      kAllgatherNeighborExchangeName, ranks, ops,
      [&](CompactBuilder& b, detail::Frontier& order, int r) {
        if (bytes_per_rank == 0) return;  // nothing moves; MPI libraries return at once
        const bool even = r % 2 == 0;
        const int right = detail::mod_add(r, 1, ranks), left = detail::mod_sub(r, 1, ranks);
        for (int step = 0; step < ranks / 2; ++step) {
          // Step 0: one block with the pair partner (even r: r+1); then two blocks (the pair
          // received last) with the other neighbour, alternating.
          const int peer = (step % 2 == 0) == even ? right : left;
          const std::int64_t bytes = step == 0 ? bytes_per_rank : 2 * bytes_per_rank;
          // The send forwards the pair that arrived in the previous step.
          detail::sendrecv_step(b, order, peer, bytes, peer, bytes, step);
        }
      });
}

}  // namespace choreo::coll
