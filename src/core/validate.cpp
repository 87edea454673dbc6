// Static checks of a Schedule. The checks run from cheap and local (one op) to global
// (matching across ranks, deadlock), so the first message a user sees names the most
// basic problem.
#include "choreo/core/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "message_order.hpp"
#include "validate_detail.hpp"

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

namespace detail {

void check_op_fields(int ranks, int rank, const Op& op) {
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

}  // namespace detail

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

}  // namespace

namespace detail {

void fill_kinds(int rank, const Program& program, RankGraph& graph) {
  graph.clear(rank);
  for (const Op& op : program.ops) {
    graph.kind.push_back(op.kind);
    graph.peer.push_back(op.peer);
    graph.tag.push_back(op.tag);
  }
  graph.op = [&program](std::size_t i) { return program.ops[i]; };
}

void fill_dependencies(const Program& program, const IdIndex& index, RankGraph& graph) {
  const auto position = [&](std::int64_t id) { return static_cast<std::uint32_t>(index.at(id)); };
  for (const Op& op : program.ops) {
    for (std::int64_t id : op.requires_completed) graph.completed.push(position(id));
    graph.completed.end_list();
    for (std::int64_t id : op.requires_started) graph.started.push(position(id));
    graph.started.end_list();
    for (std::int64_t id : op.requires_any) graph.any.push(position(id));
    graph.any.end_list();
  }
}

namespace {
/// out[d] lists the ops whose lists in `ins` hold d (a counting sort, one pass to count, one
/// to place).
void reverse_lists(std::size_t n, std::initializer_list<const FlatLists*> ins, FlatLists& out,
                   std::vector<std::uint32_t>& next) {
  out.offset.assign(n + 1, 0);
  for (const FlatLists* in : ins)
    for (std::uint32_t d : in->items) ++out.offset[d + 1];
  for (std::size_t i = 0; i < n; ++i) out.offset[i + 1] += out.offset[i];
  out.items.resize(out.offset[n]);
  next.assign(out.offset.begin(), out.offset.end() - 1);
  for (const FlatLists* in : ins)
    for (std::size_t i = 0; i < n; ++i)
      for (std::uint32_t d : (*in)[i]) out.items[next[d]++] = static_cast<std::uint32_t>(i);
}
}  // namespace

/// Kahn's algorithm per rank, a first-of group counting as one dependency that its first
/// member to finish meets (so a group is stuck only when all its members are); on failure
/// walks back along unfinished dependencies to print one cycle.
void check_no_cycle(const RankGraph& g, RankScratch& s) {
  const std::size_t n = g.size();
  reverse_lists(n, {&g.completed, &g.started}, s.dependents, s.ready);
  reverse_lists(n, {&g.any}, s.any_dependents, s.ready);
  s.pending.assign(n, 0);
  s.any_open.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    s.any_open[i] = g.any[i].empty() ? 0 : 1;
    s.pending[i] =
        static_cast<std::uint32_t>(g.completed[i].size() + g.started[i].size()) + s.any_open[i];
  }
  s.ready.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (s.pending[i] == 0) s.ready.push_back(static_cast<std::uint32_t>(i));
  std::size_t done = 0;
  while (!s.ready.empty()) {
    std::uint32_t i = s.ready.back();
    s.ready.pop_back();
    ++done;
    for (std::uint32_t d : s.dependents[i])
      if (--s.pending[d] == 0) s.ready.push_back(d);
    for (std::uint32_t d : s.any_dependents[i]) {
      if (!s.any_open[d]) continue;  // an earlier member met the group
      s.any_open[d] = 0;
      if (--s.pending[d] == 0) s.ready.push_back(d);
    }
  }
  if (done == n) return;

  std::size_t at = 0;
  while (s.pending[at] == 0) ++at;
  s.path.clear();
  s.seen.assign(n, 0);
  while (!s.seen[at]) {
    s.seen[at] = 1;
    s.path.push_back(static_cast<std::uint32_t>(at));
    std::size_t next = at;
    for (const FlatLists* deps : {&g.completed, &g.started})
      for (std::uint32_t dep : (*deps)[at])
        if (s.pending[dep] != 0) next = dep;
    // An open group: every member is unfinished, any of them continues the cycle.
    if (next == at && s.any_open[at]) next = g.any[at].front();
    at = next;
  }
  auto start = std::find(s.path.begin(), s.path.end(), static_cast<std::uint32_t>(at));
  std::string cycle;
  for (auto it = start; it != s.path.end(); ++it)
    // Only the group is left (pending 1): the walk went on through one of its members.
    cycle += fmt::format(
        "op {} waits for {}", g.op(*it).id,
        s.any_open[*it] && s.pending[*it] == 1 ? "its requires_any group (all stuck), e.g. " : "");
  const Op stuck = g.op(at);
  cycle += fmt::format("op {}", stuck.id);
  fail(g.rank, stuck, fmt::format("dependency cycle: {}; remove one of these dependencies", cycle));
}

void fail_size_mismatch(int send_rank, const Op& sop, int recv_rank, const Op& rop) {
  fail(send_rank, sop,
       fmt::format("is received by rank {}, op {} ({}): sizes differ; make them equal", recv_rank,
                   rop.id, describe(rop)));
}

void fail_unmatched_send(int rank, const Op& op) {
  fail(rank, op,
       fmt::format("rank {} posts no matching receive (from {} with tag {}); add one or drop the "
                   "send",
                   op.peer, rank, op.tag));
}

void fail_unmatched_recv(int rank, const Op& op) {
  fail(rank, op,
       op.peer == kAny ? std::string("no send is left for this any-source receive; add a send to "
                                     "rank ") +
                             std::to_string(rank) + " or drop the receive"
                       : fmt::format("rank {} sends no matching message (to {} with tag {}); add "
                                     "one or drop the receive",
                                     op.peer, rank, op.tag));
}

void fail_may_steal(int rank, const Op& wop, const Op& other) {
  fail(rank, wop,
       fmt::format("may take the message meant for op {} ({}) of the same rank: MPI matches "
                   "a message to the first posted receive that accepts it. Give receives "
                   "that may compete the same source, tag and size, or make their filters "
                   "disjoint",
                   other.id, describe(other)));
}

void fail_deadlock(bool started, const std::vector<std::pair<int, Op>>& chain) {
  std::string story;
  for (std::size_t k = 0; k < chain.size() && k < 8; ++k)
    story += fmt::format("{}rank {} op {} ({})", k ? " waits for " : "", chain[k].first,
                         chain[k].second.id, describe(chain[k].second));
  if (chain.size() > 8) story += " ...";
  fail(chain.front().first, chain.front().second,
       fmt::format("deadlock: it can never {}: {}; no rank can make progress. Start the "
                   "receive before the send it waits on, or drop a dependency",
                   started ? "complete" : "start", story));
}

}  // namespace detail

namespace {

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
  if (sop.bytes != rop.bytes) detail::fail_size_mismatch(send.rank, sop, recv.rank, rop);
}

[[noreturn]] void fail_unmatched_send(const Schedule& s, const Endpoint& send) {
  detail::fail_unmatched_send(send.rank, op_at(s, send));
}

[[noreturn]] void fail_unmatched_recv(const Schedule& s, const Endpoint& recv) {
  detail::fail_unmatched_recv(recv.rank, op_at(s, recv));
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
      detail::fail_may_steal(w.rank, wop, other);
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
    std::vector<std::pair<int, Op>> links;
    for (std::size_t k = 0; k < chain.size() && k < 9; ++k)  // 8 are told, a 9th says "..."
      links.emplace_back(rank_of(chain[k]), op(chain[k]));
    detail::fail_deadlock(started_[stuck] != 0, links);
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
  detail::RankGraph graph;
  detail::RankScratch scratch;
  for (int r = 0; r < schedule.ranks; ++r) {
    const Program& program = schedule.programs[r];
    for (const Op& op : program.ops) detail::check_op_fields(schedule.ranks, r, op);
    IdIndex index = index_ids(r, program);
    check_dependencies_exist(r, program, index);
    detail::fill_kinds(r, program, graph);
    detail::fill_dependencies(program, index, graph);
    detail::check_no_cycle(graph, scratch);
  }
  detail::check_channel_order(schedule);
  auto matches = match_messages(schedule);
  DeadlockCheck(schedule, matches).run();
  return matches;
}

}  // namespace choreo
