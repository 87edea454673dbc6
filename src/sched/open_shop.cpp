// Unequal message sizes as a non-preemptive open shop (sched.hpp): every rank a send port and
// a receive port, a message holding one of each for its size in byte-times.
//
// plan_open_shop is event-driven list scheduling. Whenever messages end, the ports they free
// look for waiting messages whose other end is free too; those start at once, the one whose
// busier port (sender or receiver) has the most bytes still waiting first (longest remaining
// port load first, a classic open-shop rule), ties to the larger message, then the lower index.
// Until a plan reaches the bound it tries three more rules and keeps the shortest plan: the sum
// of the two ports' waiting bytes instead of the larger, and (up to 100,000 messages) both with
// ties to the smaller message. Equal sizes also get the edge colouring (plan_optimal).
//
// All rules are dense: a waiting message never finds its sender and receiver idle together. That
// gives the 2x guarantee. Let m = s -> r end last, at C. Until m started, s's send port or r's
// receive port was busy at every moment (m waited from time 0), so start(m) <= (bytes s sends
// besides m) + (bytes r receives besides m), and C = start(m) + b(m) <= sent(s) + received(r)
// <= 2 LB, with LB the largest bytes through one port.
//
// Cost: a freed port scans its waiting messages for free peers, O(messages x degree) in all;
// up to 8192 ranks it ANDs bitsets instead (ranks / 64 words). Plus a heap of message ends.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <iterator>
#include <queue>
#include <span>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo {
namespace {

std::string describe_message(const Pattern& p, int m) {
  const Message& msg = p.messages[static_cast<std::size_t>(m)];
  return fmt::format("message {} ({} -> {}, {} B)", m, msg.src, msg.dst, msg.bytes);
}

/// Which waiting message goes first when ports free up.
struct Rule {
  bool sum;           ///< by the sum of its two ports' waiting bytes, else by the larger one
  bool larger_first;  ///< ties: the larger message first, else the smaller
};

/// The rules plan_open_shop tries, in order, until one reaches the bound. The last two only on
/// patterns of up to kAllRulesUpTo messages, where they are cheap.
constexpr Rule kRules[] = {{false, true}, {true, true}, {false, false}, {true, false}};
constexpr std::size_t kAllRulesUpTo = 100000;

/// Up to this many ranks the ports keep bitsets and their index (ranks^2 / 2 bytes in all:
/// 32 MiB at 8192).
constexpr int kMaxBitsetRanks = 8192;

/// One port of every rank, all send ports or all receive ports, and the messages waiting for
/// them.
class Ports {
 public:
  struct Waiting {
    int message;
    int peer;  ///< the rank at the message's other end
  };

  /// `bitsets`: also keep, per port, a bit per peer with messages waiting, which finds the
  /// ready ones of a long list in ranks / 64 word operations.
  Ports(const Pattern& p, bool receive, bool bitsets)
      : waiting_(static_cast<std::size_t>(p.ranks)),
        load_(waiting_.size(), 0),
        busy_(waiting_.size(), 0),
        fresh_(waiting_.size(), 0),
        place_(p.messages.size()),
        first_(waiting_.size() + 1, 0),
        by_peer_(bitsets ? p.messages.size() : 0),
        words_(bitsets ? (waiting_.size() + 63) / 64 : 0),
        waiting_bits_(words_ * waiting_.size(), 0),
        free_bits_(words_, ~std::uint64_t{0}) {
    for (std::size_t i = 0; i < p.messages.size(); ++i) {
      const Message& m = p.messages[i];
      const auto own = static_cast<std::size_t>(receive ? m.dst : m.src);
      const int peer = receive ? m.src : m.dst;
      place_[i] = waiting_[own].size();
      waiting_[own].push_back({static_cast<int>(i), peer});
      load_[own] += m.bytes;
      ++first_[own + 1];
      if (words_ > 0) waiting_bits_[own * words_ + at(peer) / 64] |= bit(peer);
    }
    bucket_.resize(words_ * waiting_.size());
    for (std::size_t r = 0; r < waiting_.size(); ++r) {
      first_[r + 1] += first_[r];
      if (words_ == 0) continue;
      const auto begin = by_peer_.begin() + static_cast<std::ptrdiff_t>(first_[r]);
      const auto end = begin + static_cast<std::ptrdiff_t>(waiting_[r].size());
      std::copy(waiting_[r].begin(), waiting_[r].end(), begin);
      std::sort(begin, end, [](const Waiting& a, const Waiting& b) {
        return a.peer != b.peer ? a.peer < b.peer : a.message < b.message;
      });
      for (std::size_t w = 0; w < words_; ++w) {
        const auto from =
            std::partition_point(begin, end, [&](const Waiting& a) { return at(a.peer) < 64 * w; });
        bucket_[r * words_ + w] = first_[r] + static_cast<std::size_t>(from - begin);
      }
    }
  }

  std::int64_t load(int r) const { return load_[at(r)]; }
  bool busy(int r) const { return busy_[at(r)] != 0; }
  bool fresh(int r) const { return fresh_[at(r)] != 0; }
  const std::vector<int>& freed() const { return freed_; }

  /// Calls f(waiting) for each message waiting for port r whose other end is free in `peers`.
  template <class F>
  void for_each_ready(int r, const Ports& peers, F f) const {
    const auto& list = waiting_[at(r)];
    if (words_ == 0 || list.size() <= words_) {
      for (const Waiting& w : list)
        if (!peers.busy(w.peer)) f(w);
      return;
    }
    const std::uint64_t* mine = &waiting_bits_[at(r) * words_];
    for (std::size_t i = 0; i < words_; ++i)
      for (std::uint64_t b = mine[i] & peers.free_bits_[i]; b != 0; b &= b - 1) {
        const auto same = with(r, static_cast<int>(i * 64) + std::countr_zero(b));
        if (same.size() == 1) {  // the bit says it waits
          f(same.front());
          continue;
        }
        for (const Waiting& w : same)
          if (place_[static_cast<std::size_t>(w.message)] != kStarted) f(w);
      }
  }

  /// Port r starts `message` (one waiting for it) and is busy until release(r).
  void start(int r, int message, int peer, std::int64_t bytes) {
    auto& list = waiting_[at(r)];
    const std::size_t i = place_[static_cast<std::size_t>(message)];
    list[i] = list.back();
    place_[static_cast<std::size_t>(list[i].message)] = i;
    list.pop_back();
    place_[static_cast<std::size_t>(message)] = kStarted;
    load_[at(r)] -= bytes;
    busy_[at(r)] = 1;
    if (words_ == 0) return;
    free_bits_[at(r) / 64] &= ~bit(r);
    const auto same_peer = with(r, peer);
    if (std::none_of(same_peer.begin(), same_peer.end(), [&](const Waiting& w) {
          return place_[static_cast<std::size_t>(w.message)] != kStarted;
        }))
      waiting_bits_[at(r) * words_ + at(peer) / 64] &= ~bit(peer);
  }
  /// Port r is free again; it joins the ports freed at the current time.
  void release(int r) {
    busy_[at(r)] = 0;
    if (words_ > 0) free_bits_[at(r) / 64] |= bit(r);
    if (!fresh_[at(r)]) freed_.push_back(r);
    fresh_[at(r)] = 1;
  }
  /// The current time is over: no port counts as freed any more.
  void settle() {
    for (int r : freed_) fresh_[at(r)] = 0;
    freed_.clear();
  }

 private:
  static constexpr std::size_t kStarted = ~std::size_t{0};
  static std::size_t at(int r) { return static_cast<std::size_t>(r); }
  static std::uint64_t bit(int r) { return std::uint64_t{1} << (at(r) % 64); }

  /// Port r's messages with `peer`, waiting or started (with bitsets only).
  std::span<const Waiting> with(int r, int peer) const {
    const std::size_t w = at(r) * words_ + at(peer) / 64;
    const auto begin = by_peer_.begin() + static_cast<std::ptrdiff_t>(bucket_[w]);
    const auto end = by_peer_.begin() + static_cast<std::ptrdiff_t>(at(peer) / 64 + 1 < words_
                                                                        ? bucket_[w + 1]
                                                                        : first_[at(r) + 1]);
    const auto [lo, hi] =
        std::equal_range(begin, end, Waiting{0, peer},
                         [](const Waiting& a, const Waiting& b) { return a.peer < b.peer; });
    return {lo, hi};
  }

  std::vector<std::vector<Waiting>> waiting_;  ///< not started yet, in no particular order
  std::vector<std::int64_t> load_;             ///< their bytes
  std::vector<std::uint8_t> busy_, fresh_;     ///< fresh: freed at the current time
  std::vector<int> freed_;                     ///< the fresh ports
  std::vector<std::size_t> place_;  ///< each message's place in its waiting list, or kStarted
  std::vector<std::size_t> first_;  ///< by_peer_[first_[r] .. first_[r+1]): port r's messages
  std::vector<Waiting> by_peer_;    ///< with bitsets: sorted by peer, then message
  std::size_t words_;               ///< per bitset; 0: no bitsets
  std::vector<std::uint64_t> waiting_bits_;  ///< [r * words_ ...]: peers with messages waiting
  std::vector<std::uint64_t> free_bits_;     ///< ports not busy
  /// [r * words_ + w]: where port r's messages with peers 64 w and up start in by_peer_.
  std::vector<std::size_t> bucket_;
};

/// Event-driven dense list scheduling with one priority rule.
class ListScheduler {
 public:
  ListScheduler(const Pattern& p, Rule rule)
      : p_(p),
        rule_(rule),
        out_(p, false, p.ranks <= kMaxBitsetRanks),
        in_(p, true, p.ranks <= kMaxBitsetRanks) {
    plan_.algorithm = "open-shop";
    plan_.sends.resize(static_cast<std::size_t>(p.ranks));
  }

  TimedPlan run() && {
    for (int r = 0; r < p_.ranks; ++r) {  // at time 0 every port is free
      out_.release(r);
      in_.release(r);
    }
    std::int64_t now = 0;
    std::size_t count = 0;
    for (;;) {
      candidates_.clear();
      for (int s : out_.freed()) gather(out_, in_, s, false);
      for (int r : in_.freed()) gather(in_, out_, r, true);
      std::sort(candidates_.begin(), candidates_.end(),
                [larger = rule_.larger_first](const Candidate& a, const Candidate& b) {
                  if (a.key != b.key) return a.key > b.key;
                  if (a.bytes != b.bytes) return larger == (a.bytes > b.bytes);
                  return a.message < b.message;
                });
      for (const Candidate& c : candidates_) {
        const Message& m = p_.messages[static_cast<std::size_t>(c.message)];
        if (out_.busy(m.src) || in_.busy(m.dst)) continue;
        start(c.message, now);
        ++count;
      }
      out_.settle();
      in_.settle();
      if (ends_.empty()) break;
      now = ends_.top().first;
      while (!ends_.empty() && ends_.top().first == now) {
        const Message& m = p_.messages[static_cast<std::size_t>(ends_.top().second)];
        ends_.pop();
        out_.release(m.src);
        in_.release(m.dst);
      }
    }
    if (count != p_.messages.size())
      throw Error(
          fmt::format("internal: open shop started {} of {} messages", count, p_.messages.size()));
    return std::move(plan_);
  }

 private:
  struct Candidate {
    std::int64_t key;
    std::int64_t bytes;
    int message;
  };

  /// The waiting messages of freed port `rank` whose other end is free too. A receiver skips
  /// freed senders: they found the message themselves.
  void gather(const Ports& own, const Ports& peers, int rank, bool receiver) {
    own.for_each_ready(rank, peers, [&](const Ports::Waiting& w) {
      if (receiver && peers.fresh(w.peer)) return;
      const std::int64_t a = own.load(rank), b = peers.load(w.peer);
      candidates_.push_back({rule_.sum ? a + b : std::max(a, b),
                             p_.messages[static_cast<std::size_t>(w.message)].bytes, w.message});
    });
  }

  void start(int message, std::int64_t now) {
    const Message& m = p_.messages[static_cast<std::size_t>(message)];
    out_.start(m.src, message, m.dst, m.bytes);
    in_.start(m.dst, message, m.src, m.bytes);
    plan_.sends[static_cast<std::size_t>(m.src)].push_back({message, now});
    ends_.push({now + m.bytes, message});
  }

  const Pattern& p_;
  const Rule rule_;
  Ports out_, in_;
  std::vector<Candidate> candidates_;
  using End = std::pair<std::int64_t, int>;  ///< (time, message)
  std::priority_queue<End, std::vector<End>, std::greater<>> ends_;
  TimedPlan plan_;
};

/// A slotted plan of equal-size messages in byte-times: slot t starts at t k.
TimedPlan timed_from_slots(const SlotPlan& slots, std::int64_t k) {
  TimedPlan plan;
  plan.algorithm = "open-shop";
  plan.sends.resize(slots.slots.size());
  for (std::size_t r = 0; r < slots.slots.size(); ++r)
    for (std::size_t t = 0; t < slots.slots[r].size(); ++t)
      if (slots.slots[r][t] != kDelaySlot)
        plan.sends[r].push_back({slots.slots[r][t], static_cast<std::int64_t>(t) * k});
  return plan;
}

}  // namespace

std::int64_t port_bytes_lower_bound(const Pattern& pattern) {
  const auto n = static_cast<std::size_t>(std::max(pattern.ranks, 0));
  std::vector<std::int64_t> sent(n, 0), received(n, 0);
  std::int64_t bound = 0;
  for (const auto& m : pattern.messages) {
    bound = std::max(bound, sent[static_cast<std::size_t>(m.src)] += m.bytes);
    bound = std::max(bound, received[static_cast<std::size_t>(m.dst)] += m.bytes);
  }
  return bound;
}

std::int64_t makespan_bytes(const Pattern& pattern, const TimedPlan& plan) {
  std::int64_t end = 0;
  for (const auto& sends : plan.sends)
    for (const TimedSend& s : sends)
      end = std::max(end, s.start + pattern.messages[static_cast<std::size_t>(s.message)].bytes);
  return end;
}

TimedPlan plan_open_shop(const Pattern& pattern) {
  validate(pattern);
  const std::int64_t bound = port_bytes_lower_bound(pattern);
  TimedPlan best;
  std::int64_t best_end = -1;
  auto consider = [&](TimedPlan plan) {
    const std::int64_t end = makespan_bytes(pattern, plan);
    if (best_end < 0 || end < best_end) {
      best = std::move(plan);
      best_end = end;
    }
  };
  for (std::size_t i = 0; i < std::size(kRules); ++i) {
    if (best_end == bound || (i >= 2 && pattern.messages.size() > kAllRulesUpTo)) break;
    consider(ListScheduler(pattern, kRules[i]).run());
  }
  const auto& msgs = pattern.messages;
  const bool equal = std::all_of(msgs.begin(), msgs.end(),
                                 [&](const Message& m) { return m.bytes == msgs.front().bytes; });
  if (best_end > bound && equal)  // colouring: degree x k byte-times, which is the bound
    consider(timed_from_slots(plan_optimal(pattern), msgs.front().bytes));
  return best;
}

void check_timed_plan(const Pattern& pattern, const TimedPlan& plan) {
  validate(pattern);
  if (plan.sends.size() != static_cast<std::size_t>(pattern.ranks))
    throw Error(fmt::format("{} plan has {} ranks, the pattern {}", plan.algorithm,
                            plan.sends.size(), pattern.ranks));
  std::vector<int> seen(pattern.messages.size(), 0);
  struct Arrival {
    std::int64_t start, end;
    int message;
  };
  std::vector<std::vector<Arrival>> arrivals(plan.sends.size());
  for (int r = 0; r < pattern.ranks; ++r) {
    const auto& sends = plan.sends[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < sends.size(); ++i) {
      const int m = sends[i].message;
      if (m < 0 || static_cast<std::size_t>(m) >= pattern.messages.size())
        throw Error(fmt::format("rank {} send {}: no message {}", r, i, m));
      const Message& msg = pattern.messages[static_cast<std::size_t>(m)];
      if (msg.src != r)
        throw Error(fmt::format("rank {} send {}: {} is rank {}'s", r, i,
                                describe_message(pattern, m), msg.src));
      if (seen[static_cast<std::size_t>(m)]++)
        throw Error(fmt::format("{} is sent twice", describe_message(pattern, m)));
      if (sends[i].start < 0)
        throw Error(fmt::format("rank {} send {}: {} starts at {}, before time 0", r, i,
                                describe_message(pattern, m), sends[i].start));
      if (i > 0) {
        const TimedSend& before = sends[i - 1];
        const std::int64_t end =
            before.start + pattern.messages[static_cast<std::size_t>(before.message)].bytes;
        if (sends[i].start < end)
          throw Error(fmt::format(
              "rank {} send {}: {} starts at {}, before the send before it, {}, ends at {} "
              "(a rank's sends go one after another, in order)",
              r, i, describe_message(pattern, m), sends[i].start,
              describe_message(pattern, before.message), end));
      }
      arrivals[static_cast<std::size_t>(msg.dst)].push_back(
          {sends[i].start, sends[i].start + msg.bytes, m});
    }
  }
  for (std::size_t m = 0; m < seen.size(); ++m)
    if (!seen[m])
      throw Error(fmt::format("{} is never sent", describe_message(pattern, static_cast<int>(m))));
  for (std::size_t r = 0; r < arrivals.size(); ++r) {
    auto& in = arrivals[r];
    std::sort(in.begin(), in.end(), [](const Arrival& a, const Arrival& b) {
      if (a.start != b.start) return a.start < b.start;
      if (a.end != b.end) return a.end < b.end;
      return a.message < b.message;
    });
    const Arrival* busiest = nullptr;  // the arrival so far that ends last
    for (const Arrival& a : in) {
      if (busiest && a.start < busiest->end)
        throw Error(fmt::format(
            "rank {} receives {} from byte-time {} while {} still arrives until {} (contention "
            "at the receiver)",
            r, describe_message(pattern, a.message), a.start,
            describe_message(pattern, busiest->message), busiest->end));
      if (!busiest || a.end > busiest->end) busiest = &a;
    }
  }
}

}  // namespace choreo
