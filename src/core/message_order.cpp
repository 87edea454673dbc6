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
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "choreo/error.hpp"

namespace choreo::detail {
namespace {

/// How far the backward walks of one rank may go in all: a few times the rank's ops and
/// dependencies, so that a huge program with many channel pairs cannot make validation
/// quadratic. A pair the walk could not settle within it counts as unordered.
constexpr std::size_t kWalkBudgetPerOp = 64;
constexpr std::size_t kWalkBudgetFloor = 1 << 20;

class RankOrder {
 public:
  explicit RankOrder(const Program& program) : ops_(program.ops) {
    std::size_t edges = 0;
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      index_.emplace(ops_[i].id, i);
      edges += ops_[i].requires_completed.size() + ops_[i].requires_started.size();
    }
    budget_ = std::max(kWalkBudgetFloor, kWalkBudgetPerOp * (ops_.size() + edges));
    state_.assign(ops_.size(), kUnknown);
    scratch_.assign(ops_.size(), kUnknown);
  }

  /// True when op a (earlier in program order) certainly starts before op b.
  bool starts_before(std::size_t a, std::size_t b) {
    const Op& first = ops_[a];
    const Op& second = ops_[b];
    if (first.requires_completed.empty() && first.requires_started.empty() &&
        first.requires_any.empty())
      return true;  // ready at the start, so started before anything later in program order
    certain_once_ready(second);
    const bool ordered = state_[a] != kUnknown || implied(first, second);
    for (std::size_t v : touched_) state_[v] = kUnknown;
    touched_.clear();
    return ordered;
  }

 private:
  enum : std::uint8_t { kUnknown = 0, kStarted = 1, kCompleted = 2 };

  /// Marks in state_ what is certain once b may start: each op it requires completed, each
  /// it irequires started, what all members of its first-of group imply (one of them
  /// completed, whichever it was), and, recursively, what their own start implies.
  void certain_once_ready(const Op& b) {
    for (std::int64_t id : b.requires_completed) mark(state_, touched_, id, kCompleted);
    for (std::int64_t id : b.requires_started) mark(state_, touched_, id, kStarted);
    walk(state_, touched_);
    if (b.requires_any.empty()) return;
    // The intersection of what each member's completion implies.
    std::vector<std::pair<std::size_t, std::uint8_t>> common;
    for (std::size_t k = 0; k < b.requires_any.size(); ++k) {
      mark(scratch_, scratch_touched_, b.requires_any[k], kCompleted);
      walk(scratch_, scratch_touched_);
      if (k == 0) {
        for (std::size_t v : scratch_touched_) common.emplace_back(v, scratch_[v]);
      } else {
        std::erase_if(common, [&](auto& entry) {
          entry.second = std::min(entry.second, scratch_[entry.first]);
          return entry.second == kUnknown;
        });
      }
      for (std::size_t v : scratch_touched_) scratch_[v] = kUnknown;
      scratch_touched_.clear();
      if (common.empty()) break;
    }
    for (const auto& [v, level] : common) {
      if (state_[v] == kUnknown) touched_.push_back(v);
      state_[v] = std::max(state_[v], level);
    }
  }

  void mark(std::vector<std::uint8_t>& state, std::vector<std::size_t>& touched, std::int64_t id,
            std::uint8_t level) {
    const std::size_t v = index_.at(id);
    if (state[v] >= level) return;
    if (state[v] == kUnknown) {
      touched.push_back(v);
      stack_.push_back(v);  // its own dependencies, once
    }
    state[v] = level;
  }

  /// Marks, from the ops on stack_, what their start implies: their requires completed and
  /// irequires started, recursively (within the walk budget).
  void walk(std::vector<std::uint8_t>& state, std::vector<std::size_t>& touched) {
    while (!stack_.empty() && budget_ > 0) {
      const Op& op = ops_[stack_.back()];
      stack_.pop_back();
      --budget_;
      for (std::int64_t id : op.requires_completed) mark(state, touched, id, kCompleted);
      for (std::int64_t id : op.requires_started) mark(state, touched, id, kStarted);
    }
    stack_.clear();
  }

  /// Is every dependency of a certain once b may start?
  bool implied(const Op& a, const Op& b) const {
    auto at_least = [&](std::int64_t id, std::uint8_t level) {
      return state_[index_.at(id)] >= level;
    };
    for (std::int64_t id : a.requires_completed)
      if (!at_least(id, kCompleted)) return false;
    for (std::int64_t id : a.requires_started)
      if (!at_least(id, kStarted)) return false;
    if (a.requires_any.empty()) return true;
    // a's group is met if one of its members certainly completed, or if b's own group is
    // made of a's members only (b may start only once one of them completed).
    for (std::int64_t id : a.requires_any)
      if (at_least(id, kCompleted)) return true;
    return !b.requires_any.empty() &&
           std::all_of(b.requires_any.begin(), b.requires_any.end(), [&](std::int64_t id) {
             return std::find(a.requires_any.begin(), a.requires_any.end(), id) !=
                    a.requires_any.end();
           });
  }

  const std::vector<Op>& ops_;
  std::unordered_map<std::int64_t, std::size_t> index_;
  std::vector<std::uint8_t> state_, scratch_;
  std::vector<std::size_t> touched_, scratch_touched_, stack_;
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

void check_channel_order(const Schedule& schedule) {
  for (int r = 0; r < schedule.ranks; ++r) {
    const auto& ops = schedule.programs[static_cast<std::size_t>(r)].ops;
    // (kind, peer, tag) -> the last op of that channel in program order.
    std::map<std::tuple<OpKind, int, int>, std::size_t> last;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      if (!op.is_message()) continue;
      auto [it, inserted] = last.try_emplace({op.kind, op.peer, op.tag}, i);
      if (!inserted) {
        pairs.emplace_back(it->second, i);
        it->second = i;
      }
    }
    if (pairs.empty()) continue;
    RankOrder order(schedule.programs[static_cast<std::size_t>(r)]);
    for (const auto& [a, b] : pairs)
      if (!order.starts_before(a, b)) fail_unordered(r, ops[a], ops[b]);
  }
}

}  // namespace choreo::detail
