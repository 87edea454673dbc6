// choreo::validate's checks on a CompactSchedule, in the same order and with the same
// messages (src/core/validate_detail.hpp formats them for both), as streaming passes:
//   1. per rank: op fields and dependency cycles;  2. per rank: channel order;
//   3. matching, destination by destination;       4. the deadlock play over all ops.
// Ids are program positions, as in expand(): the compact form has no other ids, and it cannot
// hold duplicate ids, unknown or cross-rank dependencies (CompactBuilder refuses them).
#include "choreo/sim/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <tuple>
#include <vector>

#include "../core/huge_pages.hpp"
#include "../core/validate_detail.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"

namespace choreo::sim {
// A namespace of its own: the library is built as jumbo translation units (CHOREO_UNITY_BUILD),
// where other files' unnamed namespaces share this one's.
namespace compact_checks {
namespace {

constexpr OpIndex kNoPartner = std::numeric_limits<OpIndex>::max();

int rank_of(const CompactSchedule& c, OpIndex v) {
  int lo = 0, hi = c.ranks();  // the rank r with first_op(r) <= v < first_op(r + 1)
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (c.first_op(mid) <= v ? lo : hi) = mid;
  }
  return lo;
}

/// The fields of op v as expand() writes them, without dependencies.
void fill_fields(const CompactSchedule& c, OpIndex base, OpIndex v, Op& op) {
  op.id = v - base;
  op.kind = c.kind(v);
  const bool message = op.is_message();
  op.peer = message ? c.peer(v) : 0;
  op.tag = message ? c.tag(v) : 0;
  op.nic = message ? c.nic(v) : 0;
  op.bytes = op.is_timed() ? 0 : c.amount(v);
  op.nanoseconds = op.is_timed() ? c.amount(v) : 0;
  op.cpu = c.cpu(v);
}

/// Op v as expand() writes it, dependency lists in program order. Scans v's rank: for
/// failure messages only.
Op full_op(const CompactSchedule& c, OpIndex v) {
  const int r = rank_of(c, v);
  const OpIndex base = c.first_op(r), end = c.first_op(r + 1);
  Op op;
  fill_fields(c, base, v, op);
  for (OpIndex i = base; i < end; ++i) {
    c.for_each_completed_dependent(i, [&](OpIndex d) {
      if (d == v) op.requires_completed.push_back(i - base);
    });
    c.for_each_started_dependent(i, [&](OpIndex d) {
      if (d == v) op.requires_started.push_back(i - base);
    });
    c.for_each_any_dependent(i, [&](OpIndex d) {
      if (d == v) op.requires_any.push_back(i - base);
    });
  }
  return op;
}

// --- per rank --------------------------------------------------------------------------

void fill_compact_kinds(const CompactSchedule& c, int r, detail::RankGraph& g) {
  g.clear(r);
  const OpIndex base = c.first_op(r), end = c.first_op(r + 1);
  for (OpIndex v = base; v < end; ++v) {
    const OpKind kind = c.kind(v);
    const bool message = kind == OpKind::Send || kind == OpKind::Recv;
    g.kind.push_back(kind);
    g.peer.push_back(message ? c.peer(v) : 0);
    g.tag.push_back(message ? c.tag(v) : 0);
  }
  g.op = [&c, base](std::size_t i) { return full_op(c, base + static_cast<OpIndex>(i)); };
}

/// The graph's requires lists are the compact form's dependent lists reversed: a counting
/// sort per kind of list, whose fill in program order of the dependents gives each list in
/// program order, as expand() does.
template <typename ForEach>
void reverse_into(OpIndex base, std::size_t n, ForEach for_each, detail::FlatLists& out,
                  std::vector<std::uint32_t>& next) {
  out.offset.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    for_each(base + static_cast<OpIndex>(i), [&](OpIndex d) { ++out.offset[d - base + 1]; });
  for (std::size_t i = 0; i < n; ++i) out.offset[i + 1] += out.offset[i];
  out.items.resize(out.offset[n]);
  next.assign(out.offset.begin(), out.offset.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    for_each(base + static_cast<OpIndex>(i),
             [&](OpIndex d) { out.items[next[d - base]++] = static_cast<std::uint32_t>(i); });
}

void fill_compact_dependencies(const CompactSchedule& c, int r, detail::RankGraph& g,
                               std::vector<std::uint32_t>& next) {
  const OpIndex base = c.first_op(r);
  const std::size_t n = c.first_op(r + 1) - base;
  reverse_into(
      base, n, [&](OpIndex i, auto&& f) { c.for_each_completed_dependent(i, f); }, g.completed,
      next);
  reverse_into(
      base, n, [&](OpIndex i, auto&& f) { c.for_each_started_dependent(i, f); }, g.started, next);
  reverse_into(
      base, n, [&](OpIndex i, auto&& f) { c.for_each_any_dependent(i, f); }, g.any, next);
}

void check_ranks_one_by_one(const CompactSchedule& c) {
  // One RankGraph and one RankScratch serve every rank: memory is that of the largest rank.
  detail::RankGraph graph;
  detail::RankScratch scratch;
  std::vector<std::uint32_t> next;
  Op op;  // reused: only its scalar fields are set
  for (int r = 0; r < c.ranks(); ++r) {
    const OpIndex base = c.first_op(r), end = c.first_op(r + 1);
    for (OpIndex v = base; v < end; ++v) {
      fill_fields(c, base, v, op);
      try {
        detail::check_op_fields(c.ranks(), r, op);
      } catch (const Error&) {
        detail::check_op_fields(c.ranks(), r, full_op(c, v));  // the message names the group
        throw;
      }
    }
    fill_compact_kinds(c, r, graph);
    fill_compact_dependencies(c, r, graph, next);
    detail::check_no_cycle(graph, scratch);
  }
  for (int r = 0; r < c.ranks(); ++r) {
    fill_compact_kinds(c, r, graph);
    if (!detail::find_channel_pairs(graph, scratch)) continue;
    fill_compact_dependencies(c, r, graph, next);
    detail::check_channel_pairs(graph, scratch);
  }
}

// --- matching --------------------------------------------------------------------------

/// A message op in its channel's order: specific receives and sends pair up by (source,
/// tag, then position), MPI's non-overtaking rule (message order checked above). Global op
/// index order is (rank, position) order, so `op` breaks ties as a stable sort would.
struct Key {
  std::int32_t src;
  std::int32_t tag;
  OpIndex op;
  friend bool operator<(const Key& a, const Key& b) {
    return std::tie(a.src, a.tag, a.op) < std::tie(b.src, b.tag, b.op);
  }
};
bool same_channel_less(const Key& a, const Key& b) {
  return std::tie(a.src, a.tag) < std::tie(b.src, b.tag);
}

/// Matches messages as choreo::validate does (specific receives by (destination, source,
/// tag) order; then receives that may steal; then wildcards, in program order, take the
/// earliest compatible send left; then unmatched sends), one destination at a time so that
/// each pass sorts only that destination's messages. Sends are placed by destination with a
/// counting sort (the destination is a rank number: one pass to count, one to place, 8 bytes
/// a send) instead of a global sort of every message op; a destination's sends arrive in
/// source order and a small std::sort orders them by (source, tag, position).
class Matching {
 public:
  explicit Matching(const CompactSchedule& c) : c_(c), partner_(c.op_count(), kNoPartner) {
    const auto ranks = static_cast<std::size_t>(c.ranks());
    offset_.assign(ranks + 1, 0);
    for (OpIndex v = 0; v < c.op_count(); ++v)
      if (c.kind(v) == OpKind::Send) ++offset_[static_cast<std::size_t>(c.peer(v)) + 1];
    for (std::size_t r = 0; r < ranks; ++r) offset_[r + 1] += offset_[r];
    sends_.resize(offset_[ranks]);
    BigVector<std::uint32_t> next(offset_.begin(), offset_.end() - 1);
    for (int r = 0; r < c.ranks(); ++r)
      for (OpIndex v = c.first_op(r); v < c.first_op(r + 1); ++v)
        if (c.kind(v) == OpKind::Send) sends_[next[static_cast<std::size_t>(c.peer(v))]++] = {v, r};
  }

  /// Returns each message op's partner (kNoPartner for other ops); frees the rest.
  BigVector<OpIndex> run() {
    bool wildcards = false;
    for (int dst = 0; dst < c_.ranks(); ++dst) wildcards |= match_specific(dst);
    if (wildcards) {
      for (int r = 0; r < c_.ranks(); ++r) check_cannot_steal(r);
      for (int dst = 0; dst < c_.ranks(); ++dst) match_wildcards(dst);
    }
    if (unmatched_sends_ > 0)
      for (int dst = 0; dst < c_.ranks(); ++dst) {
        gather_left_over(dst);
        if (!keys_.empty()) {
          const Key& first = *std::min_element(keys_.begin(), keys_.end());
          detail::fail_unmatched_send(first.src, full_op(c_, first.op));
        }
      }
    sends_ = {};
    offset_ = {};
    return std::move(partner_);
  }

 private:
  struct Send {
    OpIndex op;
    std::int32_t src;
  };

  void pair(const Key& send, int dst, OpIndex recv) {
    if (c_.amount(send.op) != c_.amount(recv))
      detail::fail_size_mismatch(send.src, full_op(c_, send.op), dst, full_op(c_, recv));
    partner_[send.op] = recv;
    partner_[recv] = send.op;
  }

  /// Pairs dst's specific receives with the sends to dst; returns whether dst has wildcards.
  bool match_specific(int dst) {
    keys_.clear();
    for (auto k = offset_[dst]; k < offset_[dst + 1]; ++k)
      keys_.push_back({sends_[k].src, c_.tag(sends_[k].op), sends_[k].op});
    std::sort(keys_.begin(), keys_.end());
    recvs_.clear();
    bool wildcards = false;
    for (OpIndex v = c_.first_op(dst); v < c_.first_op(dst + 1); ++v) {
      if (c_.kind(v) != OpKind::Recv) continue;
      if (c_.peer(v) == kAny || c_.tag(v) == kAny)
        wildcards = true;
      else
        recvs_.push_back({c_.peer(v), c_.tag(v), v});
    }
    std::sort(recvs_.begin(), recvs_.end());
    std::size_t si = 0, ri = 0;
    while (si < keys_.size() || ri < recvs_.size()) {
      if (ri == recvs_.size() || (si < keys_.size() && same_channel_less(keys_[si], recvs_[ri]))) {
        ++unmatched_sends_;  // left over for the wildcards
        ++si;
      } else if (si == keys_.size() || same_channel_less(recvs_[ri], keys_[si])) {
        detail::fail_unmatched_recv(dst, full_op(c_, recvs_[ri].op));
      } else {
        pair(keys_[si++], dst, recvs_[ri++].op);
      }
    }
    return wildcards;
  }

  /// choreo::validate's check that no two receives of a rank may take each other's message,
  /// for each wildcard receive of rank r in program order.
  void check_cannot_steal(int r) {
    const OpIndex base = c_.first_op(r), end = c_.first_op(r + 1);
    for (OpIndex w = base; w < end; ++w) {
      if (c_.kind(w) != OpKind::Recv || (c_.peer(w) != kAny && c_.tag(w) != kAny)) continue;
      for (OpIndex v = base; v < end; ++v) {
        if (v == w || c_.kind(v) != OpKind::Recv) continue;
        const bool overlap =
            (c_.peer(w) == kAny || c_.peer(v) == kAny || c_.peer(w) == c_.peer(v)) &&
            (c_.tag(w) == kAny || c_.tag(v) == kAny || c_.tag(w) == c_.tag(v));
        if (!overlap) continue;
        if (c_.peer(v) == c_.peer(w) && c_.tag(v) == c_.tag(w) && c_.amount(v) == c_.amount(w))
          continue;
        detail::fail_may_steal(r, full_op(c_, w), full_op(c_, v));
      }
    }
  }

  /// The sends to dst no receive took yet, by (source, tag, position).
  void gather_left_over(int dst) {
    keys_.clear();
    for (auto k = offset_[dst]; k < offset_[dst + 1]; ++k)
      if (partner_[sends_[k].op] == kNoPartner)
        keys_.push_back({sends_[k].src, c_.tag(sends_[k].op), sends_[k].op});
    std::sort(keys_.begin(), keys_.end());
  }

  /// Each wildcard receive of dst, in program order, takes the earliest compatible send left.
  void match_wildcards(int dst) {
    bool gathered = false;
    for (OpIndex w = c_.first_op(dst); w < c_.first_op(dst + 1); ++w) {
      if (c_.kind(w) != OpKind::Recv || (c_.peer(w) != kAny && c_.tag(w) != kAny)) continue;
      if (!gathered) gather_left_over(dst);
      gathered = true;
      const int src = c_.peer(w), tag = c_.tag(w);
      auto it = std::find_if(keys_.begin(), keys_.end(), [&](const Key& k) {
        return partner_[k.op] == kNoPartner && (src == kAny || src == k.src) &&
               (tag == kAny || tag == k.tag);
      });
      if (it == keys_.end()) detail::fail_unmatched_recv(dst, full_op(c_, w));
      pair(*it, dst, w);
      --unmatched_sends_;
    }
  }

  const CompactSchedule& c_;
  BigVector<OpIndex> partner_;
  BigVector<std::uint32_t> offset_;  ///< sends to rank d: sends_[offset_[d] .. offset_[d + 1])
  BigVector<Send> sends_;
  std::vector<Key> keys_, recvs_;  ///< one destination's sends, receives
  std::size_t unmatched_sends_ = 0;
};

// --- deadlock --------------------------------------------------------------------------

/// choreo::validate's deadlock play (rendezvous rule: a message op completes once both ends
/// started; any other op when it starts) on flat arrays: the compact form's dependent lists
/// and dependency counts, the partner index from matching, a pending count and a state byte
/// per op. Ops are started from a scan in index order plus a stack of what they release,
/// rather than a queue of every op ready at first, so the stack stays short; which ops end
/// up completed does not depend on the order (completion is monotone).
class DeadlockPlay {
 public:
  DeadlockPlay(const CompactSchedule& c, BigVector<OpIndex> partner)
      : c_(c), partner_(std::move(partner)), pending_(c.op_count()), state_(c.op_count(), 0) {
    for (OpIndex v = 0; v < c.op_count(); ++v) {
      pending_[v] = c.dependency_count(v);
      c.for_each_any_dependent(v, [&](OpIndex d) { state_[d] |= kAnyOpen; });
    }
  }

  void run() {
    for (OpIndex v = 0; v < c_.op_count(); ++v) {
      if (c_.dependency_count(v) != 0) continue;
      ready_.push_back(v);
      while (!ready_.empty()) {
        const OpIndex u = ready_.back();
        ready_.pop_back();
        start(u);
      }
    }
    for (OpIndex v = 0; v < c_.op_count(); ++v)
      if (!(state_[v] & kCompleted)) report(v);
  }

 private:
  enum : std::uint8_t { kStarted = 1, kCompleted = 2, kAnyOpen = 4 };

  void release(OpIndex d) {
    if (--pending_[d] == 0) ready_.push_back(d);
  }
  void start(OpIndex v) {
    state_[v] |= kStarted;
    c_.for_each_started_dependent(v, [&](OpIndex d) { release(d); });
    const OpIndex p = partner_[v];
    if (p == kNoPartner) {
      complete(v);
    } else if (state_[p] & kStarted) {
      complete(v);
      complete(p);
    }
  }
  void complete(OpIndex v) {
    state_[v] |= kCompleted;
    c_.for_each_completed_dependent(v, [&](OpIndex d) { release(d); });
    c_.for_each_any_dependent(v, [&](OpIndex d) {
      if (!(state_[d] & kAnyOpen)) return;  // an earlier member met the group
      state_[d] &= static_cast<std::uint8_t>(~kAnyOpen);
      release(d);
    });
  }

  /// Why is v stuck? As choreo::validate: its other end, its first unfinished dependency, or
  /// the first member of its open group.
  OpIndex blocker(OpIndex v) const {
    if (state_[v] & kStarted) return partner_[v];
    const OpIndex base = c_.first_op(rank_of(c_, v));
    const Op op = full_op(c_, v);
    for (const auto* deps : {&op.requires_completed, &op.requires_started})
      for (auto dep : *deps)
        if (!(state_[base + static_cast<OpIndex>(dep)] & kCompleted))
          return base + static_cast<OpIndex>(dep);
    if (state_[v] & kAnyOpen) return base + static_cast<OpIndex>(op.requires_any.front());
    return v;
  }

  [[noreturn]] void report(OpIndex stuck) const {
    // The message tells 8 links and a ninth as "...": the walk stops there.
    std::vector<OpIndex> chain{stuck};
    for (OpIndex v = blocker(stuck); chain.size() < 9 && std::ranges::find(chain, v) == chain.end();
         v = blocker(v))
      chain.push_back(v);
    std::vector<std::pair<int, Op>> links;
    for (OpIndex v : chain) links.emplace_back(rank_of(c_, v), full_op(c_, v));
    detail::fail_deadlock((state_[stuck] & kStarted) != 0, links);
  }

  const CompactSchedule& c_;
  BigVector<OpIndex> partner_;
  BigVector<std::uint32_t> pending_;
  BigVector<std::uint8_t> state_;
  std::vector<OpIndex> ready_;
};

}  // namespace
}  // namespace compact_checks

void validate(const CompactSchedule& schedule) {
  using namespace compact_checks;
  limits::check_ranks(schedule.ranks(), "the schedule's ranks");
  check_ranks_one_by_one(schedule);
  DeadlockPlay(schedule, Matching(schedule).run()).run();
}

}  // namespace choreo::sim
