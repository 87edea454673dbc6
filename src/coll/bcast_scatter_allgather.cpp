// Van de Geijn's broadcast (MPICH's MPIR_Bcast_intra_scatter_ring_allgather): a binomial
// scatter of the message in P pieces, then a ring allgather of the pieces.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "steps.hpp"

namespace choreo::coll {

namespace {

constexpr const char* kBcastScatterAllgatherName = "bcast_scatter_allgather";

/// MPICH's pieces: ceil(bytes / P) each, the last ones shorter or empty.
struct Pieces {
  std::int64_t bytes = 0, size = 0;
  /// Bytes of pieces [first, last).
  std::int64_t range(std::int64_t first, std::int64_t last) const {
    return std::clamp<std::int64_t>(bytes - first * size, 0, (last - first) * size);
  }
};

/// Lowest set bit of v > 0.
std::int64_t low_bit(std::int64_t v) { return v & -v; }

}  // namespace

CompactSchedule bcast_scatter_allgather(int ranks, std::int64_t bytes, int root) {
  detail::check_ranks(kBcastScatterAllgatherName, ranks);
  detail::check_non_negative(kBcastScatterAllgatherName, "bytes", bytes);
  detail::check_root(kBcastScatterAllgatherName, ranks, root);
  if (bytes > std::numeric_limits<std::int64_t>::max() - ranks)
    throw Error(fmt::format("{}: {} bytes is too large: the pieces' offsets overflow 64 bits",
                            kBcastScatterAllgatherName, bytes));
  const std::int64_t p = ranks;
  const Pieces pieces{bytes, bytes / p + (bytes % p != 0 ? 1 : 0)};
  const int scatter_steps = detail::ceil_log2(p);
  // Per rank: a receive and up to ceil(log2 P) sends in the scatter, 2 (P-1) ring ops.
  const auto per_rank = 1 + static_cast<std::uint64_t>(scatter_steps) + 2 * (ranks - 1ull);
  const auto ops = static_cast<std::uint64_t>(p) * per_rank;
  return detail::build_in_steps(
      kBcastScatterAllgatherName, ranks, ops,
      [&](CompactBuilder& b, detail::Frontier& order, int r) {
        const std::int64_t vr = (r - root + p) % p;
        auto real = [&](std::int64_t v) { return static_cast<int>((v + root) % p); };
        // Scatter: relative rank v > 0 gets pieces [v, v + low_bit(v)) from v - low_bit(v), at the
        // step where the tree's mask is low_bit(v) (the root's largest mask first).
        auto scatter_tag = [&](std::int64_t mask) {
          return scatter_steps - 1 - detail::log2_exact(static_cast<int>(mask));
        };
        std::uint32_t recv = detail::kNoOp;
        std::int64_t mask = std::int64_t{1} << scatter_steps;  // the root's subtree: all ranks
        if (vr != 0) {
          mask = low_bit(vr);
          const std::int64_t got = pieces.range(vr, std::min(vr + mask, p));
          if (got > 0) recv = b.recv(real(vr - mask), got, scatter_tag(mask));
        }
        order.add(recv);
        for (std::int64_t child = mask / 2; child > 0; child /= 2) {
          if (vr + child >= p) continue;
          const std::int64_t sent = pieces.range(vr + child, std::min(vr + 2 * child, p));
          if (sent == 0) continue;
          const std::uint32_t send = b.send(real(vr + child), sent, scatter_tag(child));
          if (recv != detail::kNoOp) b.requires_completed(send, recv);  // forwards what arrived
          order.add(send);
        }
        order.end_step();
        // Ring allgather of the pieces: in step t, relative rank v sends piece v - t to the right
        // and receives piece v - t - 1 from the left; its first steps are after its scatter sends.
        const int right = detail::mod_add(r, 1, ranks), left = detail::mod_sub(r, 1, ranks);
        for (std::int64_t t = 0; t + 1 < p; ++t) {
          const int tag = scatter_steps + static_cast<int>(t);
          const std::int64_t out = (vr - t + p) % p, in = (vr - t - 1 + 2 * p) % p;
          // The send forwards the piece that arrived in the previous step.
          detail::sendrecv_step(b, order, right, pieces.range(out, out + 1), left,
                                pieces.range(in, in + 1), tag);
        }
      });
}

}  // namespace choreo::coll
