// Static checks of a Schedule. The checks run from cheap and local (one op) to global
// (matching across ranks, deadlock), so the first message a user sees names the most
// basic problem.
#include "choreo/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "choreo/error.hpp"
#include "choreo/limits.hpp"
#include "message_order.hpp"
#include "op_fields.hpp"

namespace choreo {
namespace {

std::string where(int rank, const Op& op) {
  return fmt::format("rank {}, op {} ({})", rank, op.id, describe(op));
}

[[noreturn]] void fail(int rank, const Op& op, const std::string& problem) {
  throw Error(fmt::format("{}: {}", where(rank, op), problem));
}

void check_region(int rank, const Op& op, const Region& region, const char* name) {
  if (region.buffer < kAutoBuffer)
    fail(rank, op,
         fmt::format("{} buffer {} is negative; use a buffer id >= 0, or omit it", name,
                     region.buffer));
  if (region.offset < 0)
    fail(rank, op,
         fmt::format("{} offset {} is negative; offsets are bytes >= 0", name, region.offset));
  if (region.buffer == kAutoBuffer && region.offset != 0)
    fail(rank, op,
         fmt::format("{} offset {} is given without a buffer; name the buffer too", name,
                     region.offset));
  // Both are at most 2^50 here, so the sum cannot overflow.
  if (region.offset > limits::kMaxBytes || region.offset + op.bytes > limits::kMaxBytes)
    fail(rank, op,
         fmt::format("{} [{}, {} + {}) ends beyond 2^50 bytes, choreo's limit (docs/formats.md, "
                     "Limits); use smaller offsets",
                     name, region.offset, region.offset, op.bytes));
}

}  // namespace

void detail::check_op_fields(int ranks, int rank, const Op& op) {
  auto check_peer = [&](bool wildcard_allowed) {
    if (wildcard_allowed && op.peer == kAny) return;
    if (op.peer < 0 || op.peer >= ranks)
      fail(rank, op,
           fmt::format("peer {} is out of range for a {}-rank schedule; use a peer in 0..{}{}",
                       op.peer, ranks, ranks - 1, wildcard_allowed ? " or -1 for any source" : ""));
  };
  if (op.is_message()) {
    check_peer(op.kind == OpKind::Recv);
    if (op.tag < 0 && !(op.kind == OpKind::Recv && op.tag == kAny))
      fail(rank, op,
           fmt::format("tag {} is invalid; tags are >= 0{}", op.tag,
                       op.kind == OpKind::Recv ? " (or -1 for any tag in a receive)" : ""));
  }
  if (op.bytes < 0) fail(rank, op, "negative size; sizes are bytes >= 0");
  if (op.bytes > limits::kMaxBytes)
    fail(rank, op, "size above 2^50 bytes, choreo's limit (docs/formats.md, Limits); split it");
  if (op.nanoseconds < 0) fail(rank, op, "negative time; times are >= 0");
  if (op.nanoseconds > limits::kMaxNanoseconds)
    fail(rank, op,
         "time above 10^15 ns (10^6 s), choreo's limit (docs/formats.md, Limits); split it");
  if (op.slot < kNoSlot) fail(rank, op, "negative slot; slots are >= 0, or omit the slot");
  if (op.cpu < 0 || op.nic < 0) fail(rank, op, "negative cpu or nic number; they are >= 0");
  if (op.nic != 0 && !op.is_message())
    fail(rank, op, "a nic applies to send and recv only; drop it");
  check_region(rank, op, op.region, "region");
  if (op.kind == OpKind::Copy) check_region(rank, op, op.source, "source");
}

namespace {

/// Maps op ids to indices within one rank's program.
using IdIndex = std::unordered_map<std::int64_t, std::size_t>;

IdIndex index_ids(int rank, const Program& program) {
  IdIndex index;
  index.reserve(program.ops.size());
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const Op& op = program.ops[i];
    auto [it, inserted] = index.emplace(op.id, i);
    if (!inserted)
      fail(rank, op,
           fmt::format("duplicate id {} (also op #{} in program order); give each op of a rank "
                       "its own id",
                       op.id, it->second));
  }
  return index;
}

void check_dependencies_exist(int rank, const Program& program, const IdIndex& index) {
  for (const Op& op : program.ops) {
    for (const auto* deps : {&op.requires_completed, &op.requires_started, &op.requires_any})
      for (std::int64_t dep : *deps)
        if (!index.contains(dep))
          fail(rank, op,
               fmt::format("depends on op {}{}, which rank {} does not have; name an existing id",
                           dep, deps == &op.requires_any ? " (in requires_any)" : "", rank));
    // A member that is the op itself could only ever be met by another member: it says
    // nothing, and is most likely a wrong id.
    if (std::ranges::find(op.requires_any, op.id) != op.requires_any.end())
      fail(rank, op,
           fmt::format("lists itself (op {}) in its requires_any group; an op cannot wait for "
                       "itself, drop the id",
                       op.id));
  }
}

/// Kahn's algorithm per rank, a first-of group counting as one dependency that its first
/// member to finish meets (so a group is stuck only when all its members are); on failure
/// walks back along unfinished dependencies to print one cycle.
void check_no_cycle(int rank, const Program& program, const IdIndex& index) {
  const std::size_t n = program.ops.size();
  std::vector<std::vector<std::size_t>> dependents(n), any_dependents(n);
  std::vector<std::size_t> pending(n, 0);
  std::vector<char> any_open(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Op& op = program.ops[i];
    for (const auto* deps : {&op.requires_completed, &op.requires_started})
      for (std::int64_t dep : *deps) {
        dependents[index.at(dep)].push_back(i);
        ++pending[i];
      }
    for (std::int64_t dep : op.requires_any) any_dependents[index.at(dep)].push_back(i);
    if (!op.requires_any.empty()) {
      any_open[i] = 1;
      ++pending[i];
    }
  }
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push_back(i);
  std::size_t done = 0;
  while (!ready.empty()) {
    std::size_t i = ready.back();
    ready.pop_back();
    ++done;
    for (std::size_t d : dependents[i])
      if (--pending[d] == 0) ready.push_back(d);
    for (std::size_t d : any_dependents[i]) {
      if (!any_open[d]) continue;  // an earlier member met the group
      any_open[d] = 0;
      if (--pending[d] == 0) ready.push_back(d);
    }
  }
  if (done == n) return;

  std::size_t at = 0;
  while (pending[at] == 0) ++at;
  std::vector<std::size_t> path;
  std::vector<char> seen(n, 0);
  while (!seen[at]) {
    seen[at] = 1;
    path.push_back(at);
    const Op& op = program.ops[at];
    std::size_t next = at;
    for (const auto* deps : {&op.requires_completed, &op.requires_started})
      for (std::int64_t dep : *deps)
        if (pending[index.at(dep)] != 0) next = index.at(dep);
    // An open group: every member is unfinished, any of them continues the cycle.
    if (next == at && any_open[at]) next = index.at(op.requires_any.front());
    at = next;
  }
  auto start = std::find(path.begin(), path.end(), at);
  std::string cycle;
  for (auto it = start; it != path.end(); ++it)
    // Only the group is left (pending 1): the walk went on through one of its members.
    cycle += fmt::format(
        "op {} waits for {}", program.ops[*it].id,
        any_open[*it] && pending[*it] == 1 ? "its requires_any group (all stuck), e.g. " : "");
  cycle += fmt::format("op {}", program.ops[at].id);
  fail(rank, program.ops[at],
       fmt::format("dependency cycle: {}; remove one of these dependencies", cycle));
}

// --- matching -------------------------------------------------------------------------

struct Endpoint {
  int dst = 0;
  int src = 0;
  int tag = 0;
  int rank = 0;  ///< the rank whose program holds the op
  std::size_t index = 0;
};

bool key_less(const Endpoint& a, const Endpoint& b) {
  return std::tie(a.dst, a.src, a.tag) < std::tie(b.dst, b.src, b.tag);
}

const Op& op_at(const Schedule& s, const Endpoint& e) { return s.programs[e.rank].ops[e.index]; }

void check_sizes_match(const Schedule& s, const Endpoint& send, const Endpoint& recv) {
  const Op& sop = op_at(s, send);
  const Op& rop = op_at(s, recv);
  if (sop.bytes != rop.bytes)
    fail(send.rank, sop,
         fmt::format("is received by rank {}, op {} ({}): sizes differ; make them equal", recv.rank,
                     rop.id, describe(rop)));
}

[[noreturn]] void fail_unmatched_send(const Schedule& s, const Endpoint& send) {
  fail(send.rank, op_at(s, send),
       fmt::format("rank {} posts no matching receive (from {} with tag {}); add one or drop the "
                   "send",
                   send.dst, send.src, send.tag));
}

[[noreturn]] void fail_unmatched_recv(const Schedule& s, const Endpoint& recv) {
  const Op& op = op_at(s, recv);
  fail(recv.rank, op,
       op.peer == kAny ? std::string("no send is left for this any-source receive; add a send to "
                                     "rank ") +
                             std::to_string(recv.rank) + " or drop the receive"
                       : fmt::format("rank {} sends no matching message (to {} with tag {}); add "
                                     "one or drop the receive",
                                     op.peer, recv.rank, op.tag));
}

bool overlaps(const Op& a, const Op& b) {
  return (a.peer == kAny || b.peer == kAny || a.peer == b.peer) &&
         (a.tag == kAny || b.tag == kAny || a.tag == b.tag);
}

/// MPI gives a message to whichever matching receive was posted first, so two receives of
/// one rank whose filters overlap but differ (from any vs. from 3) may take each other's
/// message and leave one waiting forever. Receives that compete must share a filter.
void check_wildcards_cannot_steal(const Schedule& s, const std::vector<Endpoint>& wildcards) {
  for (const Endpoint& w : wildcards) {
    const auto& ops = s.programs[w.rank].ops;
    const Op& wop = ops[w.index];
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& other = ops[i];
      if (i == w.index || other.kind != OpKind::Recv || !overlaps(wop, other)) continue;
      if (other.peer == wop.peer && other.tag == wop.tag && other.bytes == wop.bytes) continue;
      fail(w.rank, wop,
           fmt::format("may take the message meant for op {} ({}) of the same rank: MPI matches "
                       "a message to the first posted receive that accepts it. Give receives "
                       "that may compete the same source, tag and size, or make their filters "
                       "disjoint",
                       other.id, describe(other)));
    }
  }
}

/// Pairs specific receives with sends by (source, tag, order); then gives each wildcard
/// receive, in program order, the earliest compatible send left over.
std::vector<MessageMatch> match_messages(const Schedule& s) {
  std::vector<Endpoint> sends, recvs, wildcards;
  for (int r = 0; r < s.ranks; ++r) {
    const auto& ops = s.programs[r].ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      if (op.kind == OpKind::Send) sends.push_back({op.peer, r, op.tag, r, i});
      if (op.kind == OpKind::Recv) {
        Endpoint e{r, op.peer, op.tag, r, i};
        (op.peer == kAny || op.tag == kAny ? wildcards : recvs).push_back(e);
      }
    }
  }
  std::stable_sort(sends.begin(), sends.end(), key_less);
  std::stable_sort(recvs.begin(), recvs.end(), key_less);

  std::vector<MessageMatch> matches;
  matches.reserve(sends.size());
  std::vector<Endpoint> left_over;  // sends no specific receive took, still in key order
  std::size_t si = 0, ri = 0;
  while (si < sends.size() || ri < recvs.size()) {
    if (ri == recvs.size() || (si < sends.size() && key_less(sends[si], recvs[ri]))) {
      left_over.push_back(sends[si++]);
    } else if (si == sends.size() || key_less(recvs[ri], sends[si])) {
      fail_unmatched_recv(s, recvs[ri]);
    } else {
      check_sizes_match(s, sends[si], recvs[ri]);
      matches.push_back({sends[si].rank, sends[si].index, recvs[ri].rank, recvs[ri].index});
      ++si;
      ++ri;
    }
  }

  check_wildcards_cannot_steal(s, wildcards);
  std::stable_sort(wildcards.begin(), wildcards.end(),
                   [](const Endpoint& a, const Endpoint& b) { return a.dst < b.dst; });
  std::vector<char> taken(left_over.size(), 0);
  for (const Endpoint& w : wildcards) {
    auto first = std::lower_bound(left_over.begin(), left_over.end(), w.dst,
                                  [](const Endpoint& e, int dst) { return e.dst < dst; });
    bool found = false;
    for (auto it = first; it != left_over.end() && it->dst == w.dst; ++it) {
      std::size_t k = static_cast<std::size_t>(it - left_over.begin());
      if (taken[k] || (w.src != kAny && w.src != it->src) || (w.tag != kAny && w.tag != it->tag))
        continue;
      check_sizes_match(s, *it, w);
      matches.push_back({it->rank, it->index, w.rank, w.index});
      taken[k] = 1;
      found = true;
      break;
    }
    if (!found) fail_unmatched_recv(s, w);
  }
  for (std::size_t k = 0; k < left_over.size(); ++k)
    if (!taken[k]) fail_unmatched_send(s, left_over[k]);
  return matches;
}

// --- deadlock ---------------------------------------------------------------------------

/// Plays the schedule with the rendezvous rule MPI guarantees (a send completes only once
/// its receive has started): an op starts when its dependencies allow, a message op
/// completes once both ends have started, anything else completes when it starts. An op
/// left unfinished can never run on some MPI, whatever its buffering.
class DeadlockCheck {
 public:
  DeadlockCheck(const Schedule& s, const std::vector<MessageMatch>& matches) : s_(s) {
    first_.resize(static_cast<std::size_t>(s.ranks) + 1, 0);
    for (int r = 0; r < s.ranks; ++r) first_[r + 1] = first_[r] + s.programs[r].ops.size();
    const std::size_t n = first_.back();
    partner_.assign(n, kNone);
    for (const auto& m : matches) {
      partner_[node(m.src_rank, m.send_index)] = node(m.dst_rank, m.recv_index);
      partner_[node(m.dst_rank, m.recv_index)] = node(m.src_rank, m.send_index);
    }
    on_complete_.resize(n);
    on_start_.resize(n);
    on_any_.resize(n);
    any_open_.assign(n, 0);
    pending_.assign(n, 0);
    started_.assign(n, 0);
    completed_.assign(n, 0);
    for (int r = 0; r < s.ranks; ++r) {
      const auto& ops = s.programs[r].ops;
      IdIndex index;
      for (std::size_t i = 0; i < ops.size(); ++i) index.emplace(ops[i].id, i);
      for (std::size_t i = 0; i < ops.size(); ++i) {
        for (auto dep : ops[i].requires_completed)
          on_complete_[node(r, index.at(dep))].push_back(node(r, i));
        for (auto dep : ops[i].requires_started)
          on_start_[node(r, index.at(dep))].push_back(node(r, i));
        for (auto dep : ops[i].requires_any) on_any_[node(r, index.at(dep))].push_back(node(r, i));
        any_open_[node(r, i)] = ops[i].requires_any.empty() ? 0 : 1;
        pending_[node(r, i)] = ops[i].requires_completed.size() + ops[i].requires_started.size() +
                               (ops[i].requires_any.empty() ? 0u : 1u);
      }
    }
  }

  void run() {
    for (std::size_t v = 0; v < pending_.size(); ++v)
      if (pending_[v] == 0) ready_.push_back(v);
    while (!ready_.empty()) {
      std::size_t v = ready_.back();
      ready_.pop_back();
      start(v);
    }
    for (std::size_t v = 0; v < completed_.size(); ++v)
      if (!completed_[v]) report(v);
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  std::size_t node(int rank, std::size_t index) const { return first_[rank] + index; }
  int rank_of(std::size_t v) const {
    auto it = std::upper_bound(first_.begin(), first_.end(), v);
    return static_cast<int>(it - first_.begin()) - 1;
  }
  const Op& op(std::size_t v) const {
    int r = rank_of(v);
    return s_.programs[r].ops[v - first_[r]];
  }

  void release(std::size_t dependent) {
    if (--pending_[dependent] == 0) ready_.push_back(dependent);
  }
  void start(std::size_t v) {
    started_[v] = 1;
    for (std::size_t d : on_start_[v]) release(d);
    std::size_t p = partner_[v];
    if (p == kNone) {
      complete(v);
    } else if (started_[p]) {
      complete(v);
      complete(p);
    }
  }
  void complete(std::size_t v) {
    completed_[v] = 1;
    for (std::size_t d : on_complete_[v]) release(d);
    // Completion is monotone, so meeting a group by whichever member completes first here
    // decides exactly what MPI could run, in any order of completions.
    for (std::size_t d : on_any_[v]) {
      if (!any_open_[d]) continue;
      any_open_[d] = 0;
      release(d);
    }
  }

  /// Why is v stuck? Either it never started (an unfinished dependency of its rank) or it
  /// is a message whose other end never started.
  std::size_t blocker(std::size_t v) const {
    if (started_[v]) return partner_[v];
    int r = rank_of(v);
    const Op& o = op(v);
    const auto& ops = s_.programs[r].ops;
    for (const auto* deps : {&o.requires_completed, &o.requires_started})
      for (auto dep : *deps) {
        for (std::size_t i = 0; i < ops.size(); ++i)
          if (ops[i].id == dep && !completed_[node(r, i)]) return node(r, i);
      }
    // An open first-of group: no member completed, so its first stands for all of them.
    if (any_open_[v])
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i].id == o.requires_any.front()) return node(r, i);
    return v;
  }

  [[noreturn]] void report(std::size_t stuck) const {
    std::vector<std::size_t> chain{stuck};
    std::vector<char> seen(pending_.size(), 0);
    seen[stuck] = 1;
    for (std::size_t v = blocker(stuck); !seen[v]; v = blocker(v)) {
      seen[v] = 1;
      chain.push_back(v);
    }
    std::string story;
    for (std::size_t k = 0; k < chain.size() && k < 8; ++k)
      story += fmt::format("{}rank {} op {} ({})", k ? " waits for " : "", rank_of(chain[k]),
                           op(chain[k]).id, describe(op(chain[k])));
    if (chain.size() > 8) story += " ...";
    fail(rank_of(stuck), op(stuck),
         fmt::format("deadlock: it can never {}: {}; no rank can make progress. Start the "
                     "receive before the send it waits on, or drop a dependency",
                     started_[stuck] ? "complete" : "start", story));
  }

  const Schedule& s_;
  std::vector<std::size_t> first_;
  std::vector<std::size_t> partner_;
  std::vector<std::vector<std::size_t>> on_complete_, on_start_, on_any_;
  std::vector<std::size_t> pending_;
  std::vector<char> started_, completed_;
  std::vector<char> any_open_;  ///< per op: its first-of group waits for its first member
  std::vector<std::size_t> ready_;
};

}  // namespace

std::vector<MessageMatch> validate(const Schedule& schedule) {
  if (schedule.ranks < 1)
    throw Error(fmt::format("the schedule has {} ranks; it needs at least 1", schedule.ranks));
  limits::check_ranks(schedule.ranks, "the schedule's ranks");
  if (schedule.programs.size() != static_cast<std::size_t>(schedule.ranks))
    throw Error(
        fmt::format("the schedule declares {} ranks but has {} programs; give one program "
                    "per rank",
                    schedule.ranks, schedule.programs.size()));
  for (int r = 0; r < schedule.ranks; ++r) {
    const Program& program = schedule.programs[r];
    for (const Op& op : program.ops) detail::check_op_fields(schedule.ranks, r, op);
    IdIndex index = index_ids(r, program);
    check_dependencies_exist(r, program, index);
    check_no_cycle(r, program, index);
  }
  detail::check_channel_order(schedule);
  auto matches = match_messages(schedule);
  DeadlockCheck(schedule, matches).run();
  return matches;
}

}  // namespace choreo
