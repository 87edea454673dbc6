// Dissemination barrier (MPICH's MPIR_Barrier_intra_dissemination; Hensgen, Finkel and
// Manber): ceil(log2 P) rounds of empty messages, in round i to r + 2^i and from r - 2^i.
#include "arguments.hpp"
#include "choreo/coll.hpp"

namespace choreo::coll {

sim::CompactSchedule barrier_dissemination(int ranks) {
  constexpr const char* kName = "barrier_dissemination";
  detail::check_ranks(kName, ranks);
  int rounds = 0;
  while ((std::int64_t{1} << rounds) < ranks) ++rounds;
  const auto ops = 2 * static_cast<std::uint64_t>(ranks) * static_cast<std::uint64_t>(rounds);
  sim::CompactBuilder b(ranks, detail::checked_op_count(kName, ranks, ops));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    std::uint32_t last_send = detail::kNoOp, last_recv = detail::kNoOp;
    for (int i = 0; i < rounds; ++i) {
      const std::int64_t distance = std::int64_t{1} << i;
      const auto to = static_cast<int>((r + distance) % ranks);
      const auto from = static_cast<int>(((r - distance) % ranks + ranks) % ranks);
      const std::uint32_t send = b.send(to, 0, i), recv = b.recv(from, 0, i);
      // One MPI_Sendrecv per round: the next round starts when both are done.
      for (std::uint32_t op : {send, recv})
        if (last_send != detail::kNoOp) {
          b.requires_completed(op, last_send);
          b.requires_completed(op, last_recv);
        }
      last_send = send;
      last_recv = recv;
    }
  }
  return b.finish();
}

}  // namespace choreo::coll
