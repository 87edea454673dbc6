// Open MPI's MPI_Alltoallv as a schedule of a pattern (ompi_coll_base_alltoallv_intra_pairwise,
// the only choice of Open MPI 3.x's tuned rules; paper 000's MPI_Alltoallv): P-1 lock-step
// exchanges, in step d rank r receives from r-d and sends to r+d, blocking, and waits for both
// before the next step. A pair outside the pattern still exchanges a 0-byte message, so every
// step is a handshake: a rank cannot run ahead of the ranks it exchanges with.
#include <unordered_map>

#include "choreo/sched/schedulers.hpp"

namespace choreo {

Schedule schedule_pairwise(const Pattern& pattern) {
  validate(pattern);
  const int n = pattern.ranks;
  // Bytes of each pair in the pattern (a pair's messages add up), by sender.
  std::vector<std::unordered_map<int, std::int64_t>> sends(static_cast<std::size_t>(n));
  for (const Message& m : pattern.messages)
    sends[static_cast<std::size_t>(m.src)][m.dst] += m.bytes;
  const auto bytes = [&](int src, int dst) {
    const auto& to = sends[static_cast<std::size_t>(src)];
    const auto it = to.find(dst);
    return it == to.end() ? std::int64_t{0} : it->second;
  };
  Schedule s;
  s.ranks = n;
  s.algorithm = "pairwise";
  s.programs.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    auto& ops = s.programs[static_cast<std::size_t>(r)].ops;
    auto add = [&ops](OpKind kind, int peer, std::int64_t amount) {
      Op op;
      op.id = static_cast<std::int64_t>(ops.size());
      op.kind = kind;
      op.peer = peer;
      op.bytes = amount;
      ops.push_back(op);
      return op.id;
    };
    std::int64_t previous_recv = -1, previous_send = -1;
    for (int d = 1; d < n; ++d) {
      const int from = (r - d + n) % n, to = (r + d) % n;
      const auto recv = add(OpKind::Recv, from, bytes(from, r));
      const auto send = add(OpKind::Send, to, bytes(r, to));
      if (previous_recv >= 0)
        for (const auto id : {recv, send})
          ops[static_cast<std::size_t>(id)].requires_completed = {previous_recv, previous_send};
      previous_recv = recv;
      previous_send = send;
    }
  }
  return s;
}

}  // namespace choreo
