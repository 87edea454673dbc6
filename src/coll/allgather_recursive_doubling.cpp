// Recursive-doubling allgather: the gathered block doubles every round. P not a power of two
// folds onto the largest power of two below it (the fold of allreduce_recursive_doubling).

#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kAllgatherRecursiveDoublingName = "allgather_recursive_doubling";

/// Emits the butterfly of virtual rank v; round i has tag first_tag + i, and round 0 requires
/// `after` unless it is kNoOp. Returns the last round's receive (or `after` with no rounds).
std::uint32_t butterfly(CompactBuilder& b, const detail::Fold& f, int v, std::int64_t m,
                        int first_tag, std::uint32_t after) {
  std::uint32_t previous_recv = after;
  for (int i = 0; i < f.rounds; ++i) {
    const int size = 1 << i, group = v & ~(size - 1), partner_group = group ^ size;
    const int partner = f.real_rank(v ^ size);
    // Everything gathered so far: the blocks of the real ranks behind v's group of 2^i.
    const std::uint32_t send =
        b.send(partner, m * f.real_ranks(group, group + size), first_tag + i);
    const std::uint32_t recv =
        b.recv(partner, m * f.real_ranks(partner_group, partner_group + size), first_tag + i);
    if (previous_recv != detail::kNoOp) {
      // Round i sends everything gathered so far, including round i-1's blocks.
      b.requires_completed(send, previous_recv);
      b.requires_completed(recv, previous_recv);
    }
    previous_recv = recv;
  }
  return previous_recv;
}

}  // namespace

CompactSchedule allgather_recursive_doubling(int ranks, std::int64_t bytes_per_rank) {
  // The fold's last message moves bytes_per_rank * (P - 1) bytes.
  detail::check_per_rank_bytes(kAllgatherRecursiveDoublingName, ranks, bytes_per_rank);
  const detail::Fold f(ranks);
  // Two ops a round on each of the p2 butterfly ranks, two more on each folded rank and its
  // stand-in; each op requires at most one.
  const auto ops = 2ull * static_cast<std::uint64_t>(f.p2) * static_cast<std::uint64_t>(f.rounds) +
                   4ull * static_cast<std::uint64_t>(f.rem);
  CompactBuilder b(ranks, detail::checked_op_count(kAllgatherRecursiveDoublingName, ranks, ops),
                   ops);
  // With a fold, step 0 is the fold-in, rounds are steps 1..k and step k+1 the fold-out.
  const int first_tag = f.rem > 0 ? 1 : 0, fold_out_tag = f.rounds + 1;
  const std::int64_t m = bytes_per_rank, others = (std::int64_t{ranks} - 1) * m;
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (m == 0) continue;  // nothing moves; MPI libraries return at once
    if (r >= 2 * f.rem) {
      butterfly(b, f, r - f.rem, m, first_tag, detail::kNoOp);
    } else if (r % 2 == 1) {
      // Hand the own block to r - 1, get every other block back.
      const std::uint32_t send = b.send(r - 1, m, 0);
      const std::uint32_t recv = b.recv(r - 1, others, fold_out_tag);
      b.requires_completed(recv, send);
    } else {
      const std::uint32_t recv = b.recv(r + 1, m, 0);
      const std::uint32_t last = butterfly(b, f, r / 2, m, first_tag, recv);
      const std::uint32_t send = b.send(r + 1, others, fold_out_tag);
      b.requires_completed(send, last);  // forwards everything the butterfly gathered
    }
  }
  return b.finish();
}

}  // namespace choreo::coll
