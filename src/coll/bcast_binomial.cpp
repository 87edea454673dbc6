// Binomial-tree broadcast in MPICH's order (MPIR_Bcast_intra_binomial without the
// segmentation): receive from the parent, then send to the children, largest subtree first.
#include "arguments.hpp"
#include "choreo/coll.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kBcastBinomialName = "bcast_binomial";

/// The bit of vr's parent link: its lowest set bit, or for the root (vr == 0) the first
/// power of two >= P, so that the root's children are all vr + 2^j < P.
std::int64_t parent_mask(std::int64_t vr, std::int64_t ranks) {
  std::int64_t mask = 1;
  while (mask < ranks && (vr & mask) == 0) mask *= 2;
  return mask;
}

/// Rank arithmetic is 64-bit so that r + 2^j cannot overflow for P near INT_MAX.
void emit_rank(sim::CompactBuilder& b, std::int64_t r, std::int64_t ranks, std::int64_t root,
               std::int64_t bytes) {
  const std::int64_t vr = (r - root + ranks) % ranks;
  const std::int64_t mask = parent_mask(vr, ranks);
  // The message over a link of bit 2^j goes in step k-1-j, k = log2(the root's mask): the
  // root sends its largest subtree first. The tag is that step.
  const std::int64_t top = parent_mask(0, ranks);
  auto step = [top](std::int64_t bit) {
    int s = 0;
    for (std::int64_t m = top / 2; m > bit; m /= 2) ++s;
    return s;
  };
  std::uint32_t recv = detail::kNoOp;
  if (vr != 0) recv = b.recv(static_cast<int>((r - mask + ranks) % ranks), bytes, step(mask));
  for (std::int64_t child = mask / 2; child > 0; child /= 2) {
    if (vr + child >= ranks) continue;
    const std::uint32_t send = b.send(static_cast<int>((r + child) % ranks), bytes, step(child));
    if (recv != detail::kNoOp) b.requires_completed(send, recv);  // forwards what arrived
  }
}

}  // namespace

sim::CompactSchedule bcast_binomial(int ranks, std::int64_t bytes, int root) {
  detail::check_ranks(kBcastBinomialName, ranks);
  detail::check_non_negative(kBcastBinomialName, "bytes", bytes);
  detail::check_root(kBcastBinomialName, ranks, root);
  // Every rank but the root receives once and each receive is one send.
  const auto messages = static_cast<std::uint64_t>(ranks) - 1;
  sim::CompactBuilder b(ranks, detail::checked_op_count(kBcastBinomialName, ranks, 2 * messages));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    emit_rank(b, r, ranks, root, bytes);
  }
  return b.finish();
}

}  // namespace choreo::coll
