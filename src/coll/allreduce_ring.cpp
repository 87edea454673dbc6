// Ring allreduce (MPICH's MPIR_Allreduce_intra_ring, Open MPI's
// ompi_coll_base_allreduce_intra_ring without its segmentation): a ring reduce-scatter of P
// chunks, then a ring allgather of the reduced chunks.
#include "arguments.hpp"
#include "choreo/coll.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {
constexpr const char* kName = "allreduce_ring";
}  // namespace

sim::CompactSchedule allreduce_ring(int ranks, std::int64_t bytes, std::int64_t reduce_ns) {
  detail::check_ranks(kName, ranks);
  detail::check_non_negative(kName, "bytes", bytes);
  detail::check_non_negative(kName, "reduce_ns", reduce_ns);
  const detail::EvenSplit chunks{bytes, ranks};
  const auto p = static_cast<std::uint64_t>(ranks);
  // Per rank and phase P-1 steps: a send, a receive and (reduce-scatter) a calc.
  const std::uint64_t ops = p * 5 * (p - 1);
  sim::CompactBuilder b(ranks, detail::checked_op_count(kName, ranks, ops), 2 * ops);
  detail::Frontier order;
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    order.reset();
    const int right = detail::mod_add(r, 1, ranks), left = detail::mod_sub(r, 1, ranks);
    // Reduce-scatter, step s (tag s): send chunk r - s (reduced in step s-1), receive chunk
    // r - s - 1 and add it in. Afterwards rank r holds chunk r + 1 fully reduced.
    for (int s = 0; s + 1 < ranks; ++s) {
      const std::int64_t out = chunks.chunk(detail::mod_sub(r, s, ranks));
      const std::int64_t in = chunks.chunk(detail::mod_sub(r, s + std::int64_t{1}, ranks));
      std::uint32_t send = detail::kNoOp, calc = detail::kNoOp;
      if (out > 0) {
        send = b.send(right, out, s);
        order.gate(b, send);  // sends what the previous step's calc reduced
      }
      if (in > 0) {
        const std::uint32_t recv = b.recv(left, in, s);
        order.gate(b, recv);  // the incoming buffer is free once the last calc read it
        calc = b.calc(detail::scaled_ns(reduce_ns, in, bytes));
        b.requires_completed(calc, recv);
        if (send != detail::kNoOp) b.requires_completed(calc, send);  // sendrecv, then reduce
      }
      order.add(calc != detail::kNoOp ? calc : send);
      order.end_step();
    }
    // Allgather, step t (tag P-1+t): send chunk r + 1 - t, receive chunk r - t.
    for (int t = 0; t + 1 < ranks; ++t) {
      const int tag = ranks - 1 + t;
      const std::int64_t out = chunks.chunk(detail::mod_sub(right, t, ranks));
      const std::int64_t in = chunks.chunk(detail::mod_sub(r, t, ranks));
      std::uint32_t send = detail::kNoOp, recv = detail::kNoOp;
      if (out > 0) {
        send = b.send(right, out, tag);
        order.gate(b, send);  // forwards the chunk that arrived in the previous step
      }
      if (in > 0) {
        recv = b.recv(left, in, tag);
        order.gate(b, recv);  // a sendrecv loop: one step at a time
      }
      order.add(send);
      order.add(recv);
      order.end_step();
    }
  }
  return b.finish();
}

}  // namespace choreo::coll
