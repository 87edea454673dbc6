#include <algorithm>

#include "choreo/sched.hpp"

namespace choreo {

namespace {
/// Distance from `from` to `to` going up the ring of `ranks`.
int ring_distance(int from, int to, int ranks) { return ((to - from) % ranks + ranks) % ranks; }
}  // namespace

Schedule schedule_direct(const Pattern& pattern) {
  validate(pattern);
  Schedule s;
  s.ranks = pattern.ranks;
  s.algorithm = "direct";
  s.programs.resize(static_cast<std::size_t>(pattern.ranks));

  std::vector<std::vector<Message>> incoming(s.programs.size()), outgoing(s.programs.size());
  for (const Message& m : pattern.messages) {
    outgoing[m.src].push_back(m);
    incoming[m.dst].push_back(m);
  }
  for (int r = 0; r < pattern.ranks; ++r) {
    const int n = pattern.ranks;
    // Sends go to r+1, r+2, ...; receives are posted in the order those sends reach r.
    std::stable_sort(outgoing[r].begin(), outgoing[r].end(),
                     [&](const Message& a, const Message& b) {
                       return ring_distance(r, a.dst, n) < ring_distance(r, b.dst, n);
                     });
    std::stable_sort(incoming[r].begin(), incoming[r].end(),
                     [&](const Message& a, const Message& b) {
                       return ring_distance(a.src, r, n) < ring_distance(b.src, r, n);
                     });

    auto& ops = s.programs[r].ops;
    auto add = [&ops](OpKind kind, int peer, std::int64_t bytes) {
      Op op;
      op.id = static_cast<std::int64_t>(ops.size());
      op.kind = kind;
      op.peer = peer;
      op.bytes = bytes;
      ops.push_back(op);
    };
    for (const Message& m : incoming[r]) add(OpKind::Recv, m.src, m.bytes);
    for (const Message& m : outgoing[r]) add(OpKind::Send, m.dst, m.bytes);
  }
  return s;
}

}  // namespace choreo
