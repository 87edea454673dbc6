// Binomial-tree reduce (MPICH's MPIR_Reduce_intra_binomial for a commutative op): relative to
// the root, each rank receives and reduces its children's vectors, smallest subtree first,
// then sends the result to its parent.
#include "arguments.hpp"
#include "choreo/coll.hpp"

namespace choreo::coll {

sim::CompactSchedule reduce_binomial(int ranks, std::int64_t bytes, int root,
                                     std::int64_t reduce_ns) {
  constexpr const char* kName = "reduce_binomial";
  detail::check_ranks(kName, ranks);
  detail::check_non_negative(kName, "bytes", bytes);
  detail::check_non_negative(kName, "reduce_ns", reduce_ns);
  detail::check_root(kName, ranks, root);
  sim::CompactBuilder b(
      ranks, detail::checked_op_count(kName, ranks, 3 * static_cast<std::uint64_t>(ranks)));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (bytes == 0) continue;
    const std::int64_t vr = (r - root + ranks) % ranks;
    std::uint32_t last = detail::kNoOp;
    const auto after_last = [&](std::uint32_t op) {
      if (last != detail::kNoOp) b.requires_completed(op, last);
      last = op;
    };
    int step = 0;
    for (std::int64_t mask = 1; mask < ranks; mask *= 2, ++step) {
      if ((vr & mask) != 0) {  // the parent's turn: send the partial result up, done
        after_last(b.send(static_cast<int>(((vr - mask) + root) % ranks), bytes, step));
        break;
      }
      if (vr + mask >= ranks) continue;
      after_last(b.recv(static_cast<int>((vr + mask + root) % ranks), bytes, step));
      after_last(b.calc(reduce_ns));  // the reduction of what arrived
    }
  }
  return b.finish();
}

}  // namespace choreo::coll
