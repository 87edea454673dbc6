// Open MPI's linear gather and scatter (coll/base, chosen by Open MPI 3.x's tuned rules for
// large blocks; paper 000's MPI_Gather and MPI_Scatter): the root talks to each rank in turn.
#include <algorithm>

#include "arguments.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"

namespace choreo::coll {
namespace {

constexpr int kGoAheadTag = 0, kFirstTag = 1, kRestTag = 2;

}  // namespace

CompactSchedule gather_linear_sync(int ranks, std::int64_t bytes_per_rank, int root,
                                   std::int64_t first_segment) {
  constexpr const char* name = "gather_linear_sync";
  detail::check_per_rank_bytes(name, ranks, bytes_per_rank);
  detail::check_root(name, ranks, root);
  if (first_segment < 0) throw Error("gather_linear_sync: the first segment must be >= 0 bytes");
  const std::int64_t first = std::min(first_segment, bytes_per_rank);
  const std::int64_t rest = bytes_per_rank - first;
  const auto p = static_cast<std::uint64_t>(ranks);
  CompactBuilder b(ranks, detail::checked_op_count(name, ranks, 3 * p + 1));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (bytes_per_rank == 0) continue;
    if (r != root) {  // all blocking: the go-ahead, then the two segments
      const auto go = b.recv(root, 0, kGoAheadTag);
      const auto head = b.send(root, first, kFirstTag);
      b.requires_completed(head, go);
      if (rest > 0) b.requires_completed(b.send(root, rest, kRestTag), head);
      continue;
    }
    // The root, rank by rank in order: post the first segment's receive, send the go-ahead,
    // post the rest's receive, and wait for the first segment before the next rank.
    std::uint32_t previous_head = detail::kNoOp;
    for (int k = 1; k < ranks; ++k) {
      const int from = (root + k) % ranks;
      const auto head = b.recv(from, first, kFirstTag);
      const auto go = b.send(from, 0, kGoAheadTag);
      if (previous_head != detail::kNoOp) {
        b.requires_completed(head, previous_head);
        b.requires_completed(go, previous_head);
      }
      if (rest > 0) b.requires_completed(b.recv(from, rest, kRestTag), go);
      previous_head = head;
    }
    b.copy(bytes_per_rank);  // its own block
  }
  return b.finish();
}

CompactSchedule scatter_linear(int ranks, std::int64_t bytes_per_rank, int root) {
  constexpr const char* name = "scatter_linear";
  detail::check_per_rank_bytes(name, ranks, bytes_per_rank);
  detail::check_root(name, ranks, root);
  const auto p = static_cast<std::uint64_t>(ranks);
  CompactBuilder b(ranks, detail::checked_op_count(name, ranks, 2 * p));
  for (int r = 0; r < ranks; ++r) {
    b.begin_rank(r);
    if (bytes_per_rank == 0) continue;
    if (r != root) {
      b.recv(root, bytes_per_rank);
      continue;
    }
    // Blocking sends to ranks 0, 1, ..., P-1 in order, its own block copied in its turn.
    std::uint32_t previous = detail::kNoOp;
    for (int to = 0; to < ranks; ++to) {
      const auto op = to == root ? b.copy(bytes_per_rank) : b.send(to, bytes_per_rank);
      if (previous != detail::kNoOp) b.requires_completed(op, previous);
      previous = op;
    }
  }
  return b.finish();
}

}  // namespace choreo::coll
