#pragma once
// One rank's program of the ring allgather (private), written into any ProgramBuilder:
// allgather_ring calls it for every rank, a persistent allgather (src/persist) for its own
// rank only. The program is documented with the generator in choreo/coll/generators.hpp.
#include <cstdint>

#include "arguments.hpp"
#include "program_builder.hpp"

namespace choreo::coll::detail {

/// Rank r of allgather_ring over `ranks`: P-1 steps of a send and a receive.
template <ProgramBuilder Builder>
void allgather_ring_rank(Builder& b, int ranks, int r, std::int64_t bytes_per_rank) {
  const int right = r + 1 == ranks ? 0 : r + 1, left = r == 0 ? ranks - 1 : r - 1;
  std::uint32_t previous_recv = kNoOp;
  for (int step = 0; step + 1 < ranks; ++step) {
    const std::uint32_t send = b.send(right, bytes_per_rank, step);
    const std::uint32_t recv = b.recv(left, bytes_per_rank, step);
    if (previous_recv != kNoOp) {
      b.requires_completed(send, previous_recv);  // forwards the block that just arrived
      b.requires_completed(recv, previous_recv);  // one receive outstanding, as in sendrecv
    }
    previous_recv = recv;
  }
}

}  // namespace choreo::coll::detail
