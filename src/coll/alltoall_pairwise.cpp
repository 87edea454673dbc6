// Pairwise-exchange alltoall (Open MPI's ompi_coll_base_alltoall_intra_pairwise): a local copy
// of the own block, then P-1 sendrecv steps at increasing distance.
#include <fmt/format.h>

#include <limits>

#include "arguments.hpp"
#include "choreo/coll.hpp"
#include "choreo/error.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kName = "alltoall_pairwise";
}  // namespace

sim::CompactSchedule alltoall_pairwise(int ranks, std::int64_t bytes_per_rank) {
  detail::check_ranks(kName, ranks);
  detail::check_non_negative(kName, "bytes_per_rank", bytes_per_rank);
  if (bytes_per_rank > std::numeric_limits<std::int64_t>::max() / ranks)
    throw Error(fmt::format("{}: {} ranks x {} bytes overflows a 64-bit byte count", kName, ranks,
                            bytes_per_rank));
  const auto p = static_cast<std::uint64_t>(ranks);
  // A copy, then a send and a receive a step, each requiring the previous step's two.
  const std::uint64_t ops = p * (1 + 2 * (p - 1));
  sim::CompactBuilder b(ranks, detail::checked_op_count(kName, ranks, ops), 2 * ops);
  detail::Frontier order;
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (bytes_per_rank == 0) continue;  // nothing moves; MPI libraries return at once
    order.reset();
    order.add(b.copy(bytes_per_rank));  // Open MPI's step 0, the sendrecv with itself
    order.end_step();
    for (int distance = 1; distance < ranks; ++distance) {
      const int tag = distance - 1;
      const std::uint32_t send = b.send(detail::mod_add(r, distance, ranks), bytes_per_rank, tag);
      const std::uint32_t recv = b.recv(detail::mod_sub(r, distance, ranks), bytes_per_rank, tag);
      order.gate(b, send);  // a sendrecv loop: one step at a time
      order.gate(b, recv);
      order.add(send);
      order.add(recv);
      order.end_step();
    }
  }
  return b.finish();
}

}  // namespace choreo::coll
