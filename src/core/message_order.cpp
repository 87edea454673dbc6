// Do the ops of one channel start in program order in every run? The engines start an op as
// soon as its dependencies allow and, among ops ready at the same moment, the earlier in
// program order first (docs/executor.md, docs/sim-model.md). So op a starts no later than a
// later op b of its channel when everything a waits for is certain to have happened once b
// may start: a has no dependencies, or b depends on a, or each of a's dependencies is among
// what b's readiness implies. The last is found by walking b's dependencies backwards: an op
// that completed (or started) had its own requires completed and irequires started; a
// first-of group implies what all of its members' completions imply.
// "The same moment" is one event: the simulator queues the ops an event releases after those
// already queued, so an op released later (even at the same time) starts later.
#include "message_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "choreo/core/error.hpp"
#include "validate_detail.hpp"

namespace choreo::detail {
namespace {

/// How far the backward walks of one rank may go in all: a few times the rank's ops and
/// dependencies, so that a huge program with many channel pairs cannot make validation
/// quadratic. A pair the walk could not settle within it counts as unordered.
constexpr std::size_t kWalkBudgetPerOp = 64;
constexpr std::size_t kWalkBudgetFloor = 1 << 20;

class RankOrder {
 public:
  RankOrder(const RankGraph& g, RankScratch& s) : g_(g), s_(s) {
    const std::size_t edges = g.completed.items.size() + g.started.items.size();
    budget_ = std::max(kWalkBudgetFloor, kWalkBudgetPerOp * (g.size() + edges));
    s.state.assign(g.size(), kUnknown);
    s.other_state.assign(g.size(), kUnknown);
    s.touched.clear();
    s.other_touched.clear();
    s.stack.clear();
  }

  /// True when op a (earlier in program order) certainly starts before op b.
  bool starts_before(std::size_t a, std::size_t b) {
    if (g_.completed[a].empty() && g_.started[a].empty() && g_.any[a].empty())
      return true;  // ready at the start, so started before anything later in program order
    certain_once_ready(b);
    const bool ordered = s_.state[a] != kUnknown || implied(a, b);
    for (std::uint32_t v : s_.touched) s_.state[v] = kUnknown;
    s_.touched.clear();
    return ordered;
  }

 private:
  enum : std::uint8_t { kUnknown = 0, kStarted = 1, kCompleted = 2 };

  /// Marks in state what is certain once b may start: each op it requires completed, each
  /// it irequires started, what all members of its first-of group imply (one of them
  /// completed, whichever it was), and, recursively, what their own start implies.
  void certain_once_ready(std::size_t b) {
    for (std::uint32_t v : g_.completed[b]) mark(s_.state, s_.touched, v, kCompleted);
    for (std::uint32_t v : g_.started[b]) mark(s_.state, s_.touched, v, kStarted);
    walk(s_.state, s_.touched);
    const auto group = g_.any[b];
    if (group.empty()) return;
    // The intersection of what each member's completion implies.
    auto& common = s_.common;
    common.clear();
    for (std::size_t k = 0; k < group.size(); ++k) {
      mark(s_.other_state, s_.other_touched, group[k], kCompleted);
      walk(s_.other_state, s_.other_touched);
      if (k == 0) {
        for (std::uint32_t v : s_.other_touched) common.emplace_back(v, s_.other_state[v]);
      } else {
        std::erase_if(common, [&](auto& entry) {
          entry.second = std::min(entry.second, s_.other_state[entry.first]);
          return entry.second == kUnknown;
        });
      }
      for (std::uint32_t v : s_.other_touched) s_.other_state[v] = kUnknown;
      s_.other_touched.clear();
      if (common.empty()) break;
    }
    for (const auto& [v, level] : common) {
      if (s_.state[v] == kUnknown) s_.touched.push_back(v);
      s_.state[v] = std::max(s_.state[v], level);
    }
  }

  void mark(std::vector<std::uint8_t>& state, std::vector<std::uint32_t>& touched, std::uint32_t v,
            std::uint8_t level) {
    if (state[v] >= level) return;
    if (state[v] == kUnknown) {
      touched.push_back(v);
      s_.stack.push_back(v);  // its own dependencies, once
    }
    state[v] = level;
  }

  /// Marks, from the ops on the stack, what their start implies: their requires completed
  /// and irequires started, recursively (within the walk budget).
  void walk(std::vector<std::uint8_t>& state, std::vector<std::uint32_t>& touched) {
    while (!s_.stack.empty() && budget_ > 0) {
      const std::uint32_t op = s_.stack.back();
      s_.stack.pop_back();
      --budget_;
      for (std::uint32_t v : g_.completed[op]) mark(state, touched, v, kCompleted);
      for (std::uint32_t v : g_.started[op]) mark(state, touched, v, kStarted);
    }
    s_.stack.clear();
  }

  /// Is every dependency of a certain once b may start?
  bool implied(std::size_t a, std::size_t b) const {
    for (std::uint32_t v : g_.completed[a])
      if (s_.state[v] < kCompleted) return false;
    for (std::uint32_t v : g_.started[a])
      if (s_.state[v] < kStarted) return false;
    const auto group = g_.any[a];
    if (group.empty()) return true;
    // a's group is met if one of its members certainly completed, or if b's own group is
    // made of a's members only (b may start only once one of them completed).
    for (std::uint32_t v : group)
      if (s_.state[v] >= kCompleted) return true;
    const auto other = g_.any[b];
    return !other.empty() && std::all_of(other.begin(), other.end(), [&](std::uint32_t v) {
      return std::find(group.begin(), group.end(), v) != group.end();
    });
  }

  const RankGraph& g_;
  RankScratch& s_;
  std::size_t budget_ = 0;
};

[[noreturn]] void fail_unordered(int rank, const Op& earlier, const Op& later) {
  const bool send = later.kind == OpKind::Send;
  const std::string peer =
      later.peer == kAny ? std::string("any rank") : fmt::format("rank {}", later.peer);
  throw Error(fmt::format(
      "rank {}, op {} ({}): may {} before op {} ({}), an earlier {} {} {} with the same tag, and "
      "MPI {}: it would take the {} meant for op {}. Make op {} require or irequire op {}, or "
      "give the two different tags",
      rank, later.id, describe(later), send ? "start" : "be posted", earlier.id, describe(earlier),
      send ? "send" : "receive", send ? "to" : "from", peer,
      send ? "matches the messages of one destination and tag in the order their sends start"
           : "gives a message to the first posted receive that accepts it",
      send ? "receive" : "message", earlier.id, later.id, earlier.id));
}

}  // namespace

bool find_channel_pairs(const RankGraph& g, RankScratch& s) {
  // The message ops sorted by channel (kind, peer, tag), program order within one: each
  // neighbour pair of one channel is a pair to check. A sort of positions in reused scratch
  // rather than a map of channels, so that a rank costs no allocation.
  s.channel.clear();
  for (std::size_t i = 0; i < g.size(); ++i)
    if (g.kind[i] == OpKind::Send || g.kind[i] == OpKind::Recv)
      s.channel.push_back(static_cast<std::uint32_t>(i));
  const auto key = [&](std::uint32_t i) { return std::tuple(g.kind[i], g.peer[i], g.tag[i], i); };
  std::sort(s.channel.begin(), s.channel.end(),
            [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  s.pairs.clear();
  for (std::size_t k = 1; k < s.channel.size(); ++k) {
    const std::uint32_t a = s.channel[k - 1], b = s.channel[k];
    if (g.kind[a] == g.kind[b] && g.peer[a] == g.peer[b] && g.tag[a] == g.tag[b])
      s.pairs.emplace_back(a, b);
  }
  // Checked (and so reported) in program order of the later op.
  std::sort(s.pairs.begin(), s.pairs.end(),
            [](const auto& x, const auto& y) { return x.second < y.second; });
  return !s.pairs.empty();
}

void check_channel_pairs(const RankGraph& g, RankScratch& s) {
  RankOrder order(g, s);
  for (const auto& [a, b] : s.pairs)
    if (!order.starts_before(a, b)) fail_unordered(g.rank, g.op(a), g.op(b));
}

void check_channel_order(const Schedule& schedule) {
  RankGraph graph;
  RankScratch scratch;
  std::unordered_map<std::int64_t, std::size_t> index;
  for (int r = 0; r < schedule.ranks; ++r) {
    const Program& program = schedule.programs[static_cast<std::size_t>(r)];
    fill_kinds(r, program, graph);
    if (!find_channel_pairs(graph, scratch)) continue;
    index.clear();
    for (std::size_t i = 0; i < program.ops.size(); ++i) index.emplace(program.ops[i].id, i);
    fill_dependencies(program, index, graph);
    check_channel_pairs(graph, scratch);
  }
}

}  // namespace choreo::detail
