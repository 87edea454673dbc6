// The shortest contention-free plan. A slot is a colour of the bipartite multigraph senders ->
// receivers (an edge a message), and by König's theorem Δ colours suffice, Δ the largest in- or
// out-degree; no contention-free plan is shorter. Two exact colourings, then a compaction
// (E messages, n ranks):
//
// 1. Alternating paths (this file), tried first because its plans have the fewest delays.
//    Messages are taken in ring order (every rank's first send, then every second send, ...).
//    Each takes a = the lowest colour free at its sender u; else b = the lowest free at its
//    receiver v, if u has b free; else the a/b path leaving v by colour a is flipped, which
//    frees a at v (in a bipartite graph the path cannot reach u), and it takes a. Each sender
//    thus keeps its sends in its lowest slots, and in ring order an alltoall needs no flip.
//    Time O(E Δ/64) for the free-colour bitsets plus the path steps; a path is at most 2n long,
//    so O(E n) at worst. Memory: two n x Δ tables (the other end of each colour at each rank),
//    colour-major so that a path reads two rows of each. Dense random patterns need ~7 path
//    steps a message, each a cache miss once the tables outgrow the cache: 4096 ranks at
//    D = 0.5, 61 M steps, 1.5 s; 8192 ranks at D = 0.25, 133 M steps, 8 s. So it gets a budget
//    of max(2^22, E/2) path steps (at most a few tenths of a second), and stops as soon as it
//    is on course to exceed it (steps so far against messages so far, after 2^20 steps), which
//    sends dense patterns on early. It is skipped when the tables would pass max(2^24, 4E)
//    entries (one dense rank among many sparse ones).
//
// 2. Euler-partition divide and conquer (euler_split.cpp), for the rest. The graph is made
//    Δ-regular: consecutive low-degree ranks share a vertex (next-fit, so at most 2E/Δ + 1
//    vertices a side) and dummy edges make up the missing degree, M <= 2E + Δ edges. A
//    d-regular graph, d even, splits into two d/2-regular halves along Euler circuits (every
//    vertex's edges paired up, each pair split between the halves); d odd first gives up one
//    perfect matching (greedy, then Goel-Kapralov-Khanna random walks: expected O(N log N) for
//    N vertices a side), which becomes a colour. A level of the recursion is O(M), there are
//    about log2 Δ of them and at most 2Δ matchings, with N Δ = M: O(M (log Δ + log N)) =
//    O(E log n) expected time, 16 bytes an edge of memory. Its colours spread every rank's
//    sends over all Δ slots, hence:
//
// 3. Compaction (PlanBuilder), after either: colour classes in order, each send moves to the
//    lowest slot free at both its ends, if lower. The plan stays contention-free and Δ long,
//    and no rank's plan gets longer (its delays never grow). After (2) it recovers most of
//    what (1) would give: 4096 ranks at D = 0.5, 436 k delays -> 218 k, against 177 k from
//    (1). It is also what keeps plans small: a SlotPlan row runs to its rank's last slot, and
//    uncompacted, one rank sending to all of 200,000 would give every rank a row of ~Δ. Time
//    O(E Δ/64); memory at most 16 bytes a message (BusySlots: a bitset for a rank with Δ/64
//    sends or more, a sorted list for the others).
//
// 4. Fewer delays (plan_optimal's Auto; delay_reduction.cpp): a rank's delays are the empty
//    slots before its last send, and moving that send into an empty slot of its own, directly
//    or by a Kempe swap at its receiver, shortens the rank's plan. A local search makes such
//    moves while they pay. It starts from delay insertion's plan where that is cheap (Δ n^2 up
//    to 2^25), its sends past slot Δ first placed where they cost least: that plan has few
//    delays and often Δ slots already. From the colouring as well on small patterns (up to
//    1024 messages), or where delay insertion is not run or not better. Paper 000's
//    scale-free patterns of 64 ranks, m = 4 ... 28: 245, 198, 253, 145, 165 delays, against
//    387, 300, 301, 170, 165 for delay insertion (26 slots for m = 4) and 427, 388, 526, 708,
//    907 for (1) + (3) alone. Skipped where the colouring tables would not fit (as for (1)).
//    Cost: a move priced is a path walk per pair of slots (x free at the sender, y free at
//    the receiver), within a budget of max(2^21, 16 E) steps; under 0.7 ms at 64 ranks.
//
// Deterministic: fixed orders, and the random walks use a fixed-seed generator of their own.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>

#include "../core/huge_pages.hpp"
#include "choreo/core/error.hpp"
#include "edge_colouring.hpp"
#include "slot_colouring.hpp"

namespace choreo {
namespace detail {
namespace {

std::size_t words_for(std::size_t colours) { return (colours + 63) / 64; }

/// Bitsets of `colours` bits for `n` vertices; the bits past the last colour are set (busy) so
/// a search for a free colour never returns one of them.
std::vector<std::uint64_t> busy_bitsets(std::size_t n, std::size_t colours) {
  const std::size_t words = words_for(colours);
  std::vector<std::uint64_t> bits(n * words, 0);
  if (colours % 64 != 0)
    for (std::size_t x = 0; x < n; ++x)
      bits[x * words + words - 1] = ~std::uint64_t{0} << (colours % 64);
  return bits;
}

/// Lowest free colour of vertex x at or above word first[x], which is moved up past full words
/// (all colours below first[x] stay busy: callers lower it when they free one).
std::size_t lowest_free(const std::vector<std::uint64_t>& bits, std::vector<std::uint32_t>& first,
                        std::size_t words, std::size_t x) {
  std::size_t w = first[x];
  while (w < words && bits[x * words + w] == ~std::uint64_t{0}) ++w;
  if (w == words) throw Error("internal: no free colour; the degree bound was wrong");
  first[x] = static_cast<std::uint32_t>(w);
  return w * 64 + static_cast<std::size_t>(std::countr_one(bits[x * words + w]));
}

bool is_busy(const std::vector<std::uint64_t>& bits, std::size_t words, std::size_t x,
             std::size_t c) {
  return (bits[x * words + c / 64] >> (c % 64)) & 1;
}
void set_busy(std::vector<std::uint64_t>& bits, std::size_t words, std::size_t x, std::size_t c) {
  bits[x * words + c / 64] |= std::uint64_t{1} << (c % 64);
}
void set_free(std::vector<std::uint64_t>& bits, std::vector<std::uint32_t>& first,
              std::size_t words, std::size_t x, std::size_t c) {
  bits[x * words + c / 64] &= ~(std::uint64_t{1} << (c % 64));
  first[x] = std::min(first[x], static_cast<std::uint32_t>(c / 64));
}

}  // namespace

SenderLists sender_lists(const Pattern& pattern) {
  validate(pattern);
  const auto n = static_cast<std::size_t>(pattern.ranks);
  SenderLists lists;
  lists.out_degree.assign(n, 0);
  lists.in_degree.assign(n, 0);
  for (const Message& m : pattern.messages) {
    ++lists.out_degree[static_cast<std::size_t>(m.src)];
    ++lists.in_degree[static_cast<std::size_t>(m.dst)];
  }
  lists.offset.assign(n + 1, 0);
  for (std::size_t r = 0; r < n; ++r) {
    lists.offset[r + 1] = lists.offset[r] + static_cast<std::size_t>(lists.out_degree[r]);
    lists.degree = std::max({lists.degree, lists.out_degree[r], lists.in_degree[r]});
  }
  // Counting sort by sender, stable: each rank's messages in index order.
  lists.entries.resize(pattern.messages.size());
  std::vector<std::size_t> cursor(lists.offset.begin(), lists.offset.end() - 1);
  for (std::size_t i = 0; i < pattern.messages.size(); ++i) {
    const Message& m = pattern.messages[i];
    lists.entries[cursor[static_cast<std::size_t>(m.src)]++] = {static_cast<int>(i), m.dst};
  }
  // Ring order, stably. Patterns are usually sorted by destination already; then the ring order
  // is a rotation (destinations above r first) and no sort is needed.
  using Entry = SenderLists::Entry;
  for (std::size_t r = 0; r < n; ++r) {
    const auto begin = lists.entries.begin() + static_cast<std::ptrdiff_t>(lists.offset[r]);
    const auto end = lists.entries.begin() + static_cast<std::ptrdiff_t>(lists.offset[r + 1]);
    const int self = static_cast<int>(r);
    auto by_dst = [](const Entry& a, const Entry& b) { return a.dst < b.dst; };
    if (std::is_sorted(begin, end, by_dst)) {
      std::rotate(begin,
                  std::partition_point(begin, end, [&](const Entry& e) { return e.dst < self; }),
                  end);
    } else {
      auto distance = [&](const Entry& e) {
        return (e.dst - self + pattern.ranks) % pattern.ranks;
      };
      std::stable_sort(begin, end,
                       [&](const Entry& a, const Entry& b) { return distance(a) < distance(b); });
    }
  }
  return lists;
}

BusySlots::BusySlots(const std::vector<int>& degree, std::size_t slots)
    : slots_(slots), words_(words_for(slots)), row_(degree.size()), dense_(degree.size()) {
  std::size_t dense = 0, listed = 0;
  for (std::size_t x = 0; x < degree.size(); ++x) {
    dense_[x] = static_cast<std::size_t>(degree[x]) * 64 >= slots;
    row_[x] = dense_[x] ? dense++ * words_ : listed;
    if (!dense_[x]) listed += static_cast<std::size_t>(degree[x]);
  }
  bits_.assign(dense * words_, 0);
  if (slots % 64 != 0)  // the bits past the last slot are busy: never returned as free
    for (std::size_t r = 0; r < dense; ++r)
      bits_[r * words_ + words_ - 1] = ~std::uint64_t{0} << (slots % 64);
  first_.assign(degree.size(), 0);
  list_.resize(listed);
  size_.assign(degree.size(), 0);
}

std::size_t BusySlots::next_free(std::size_t x, std::size_t t) const {
  if (t >= slots_) return slots_;
  if (!dense_[x]) {
    const auto begin = list_.begin() + static_cast<std::ptrdiff_t>(row_[x]);
    const auto end = begin + size_[x];
    for (auto it = std::lower_bound(begin, end, static_cast<int>(t));
         it != end && static_cast<std::size_t>(*it) == t; ++it)
      ++t;
    return t;
  }
  const std::uint64_t* row = bits_.data() + row_[x];
  std::size_t w = t / 64;
  std::uint64_t free = ~row[w] & (~std::uint64_t{0} << (t % 64));
  while (free == 0) {
    if (++w == words_) return slots_;
    free = ~row[w];
  }
  return w * 64 + static_cast<std::size_t>(std::countr_zero(free));
}

void BusySlots::take(std::size_t x, std::size_t t) {
  if (!dense_[x]) {
    const auto begin = list_.begin() + static_cast<std::ptrdiff_t>(row_[x]);
    const auto end = begin + size_[x]++;  // room for it: a rank takes one slot a message
    const auto at = std::lower_bound(begin, end, static_cast<int>(t));
    std::copy_backward(at, end, end + 1);
    *at = static_cast<int>(t);
    return;
  }
  std::uint64_t* row = bits_.data() + row_[x];
  row[t / 64] |= std::uint64_t{1} << (t % 64);
  // Slots are only ever taken, so the first word with a free slot only moves up.
  while (first_[x] < words_ && row[first_[x]] == ~std::uint64_t{0}) ++first_[x];
}

const std::uint64_t* BusySlots::bits(std::size_t x) const {
  return dense_[x] ? bits_.data() + row_[x] : nullptr;
}
std::size_t BusySlots::first_word(std::size_t x) const { return first_[x]; }

PlanBuilder::PlanBuilder(const SenderLists& lists, bool compact)
    : lists_(lists),
      n_(lists.out_degree.size()),
      compact_(compact),
      sending_(compact ? lists.out_degree : std::vector<int>{},
               static_cast<std::size_t>(lists.degree)),
      receiving_(compact ? lists.in_degree : std::vector<int>{},
                 static_cast<std::size_t>(lists.degree)),
      slots_(lists.entries.size()),
      cursor_(lists.offset.begin(), lists.offset.end() - 1),
      last_(n_, -1) {}

void PlanBuilder::add(int src, int dst, int colour) {
  const auto u = static_cast<std::size_t>(src), v = static_cast<std::size_t>(dst);
  auto c = static_cast<std::size_t>(colour);
  // A rank with Δ sends (or receives) has every slot busy: nothing to look for.
  if (compact_ && lists_.out_degree[u] < lists_.degree && lists_.in_degree[v] < lists_.degree) {
    const std::uint64_t *su = sending_.bits(u), *rv = receiving_.bits(v);
    if (su != nullptr && rv != nullptr) {  // two bitsets: a word at a time
      for (std::size_t w = std::max(sending_.first_word(u), receiving_.first_word(v)); w <= c / 64;
           ++w)
        if (const std::uint64_t free = ~(su[w] | rv[w]); free != 0) {
          c = std::min(c, w * 64 + static_cast<std::size_t>(std::countr_zero(free)));
          break;
        }
    } else {  // a list: its few busy slots are stepped over, t only grows
      for (std::size_t t = 0; t < c;) {
        const std::size_t a = sending_.next_free(u, t), b = receiving_.next_free(v, a);
        if (a == b) c = std::min(c, a);
        if (a == b || b >= c) break;
        t = b;
      }
    }
  }
  if (compact_) {
    sending_.take(u, c);
    receiving_.take(v, c);
  }
  if (cursor_[u] == lists_.offset[u + 1])
    throw Error(fmt::format("internal: rank {} given more sends than it has", src));
  slots_[cursor_[u]++] = {dst, static_cast<int>(c)};
  last_[u] = std::max(last_[u], static_cast<int>(c));
  ++added_;
}

SlotPlan PlanBuilder::finish() {
  if (added_ != lists_.entries.size())
    throw Error(fmt::format("internal: {} of {} messages coloured", added_, lists_.entries.size()));
  SlotPlan plan;
  plan.algorithm = "optimal";
  plan.slots.resize(n_);
  // Each rank's coloured sends are (destination, slot) pairs; give them to its messages by
  // destination. Equal destinations (repeated messages) take their slots in ring order.
  std::vector<int> head(n_, -1);
  BigVector<int> next(slots_.size(), -1);
  for (std::size_t u = 0; u < n_; ++u) {
    auto& row = plan.slots[u];
    row.assign(static_cast<std::size_t>(last_[u] + 1), kDelaySlot);
    for (std::size_t k = lists_.offset[u + 1]; k-- > lists_.offset[u];) {
      const auto v = static_cast<std::size_t>(slots_[k].dst);
      next[k] = head[v];
      head[v] = static_cast<int>(k);
    }
    for (std::size_t k = lists_.offset[u]; k < lists_.offset[u + 1]; ++k) {
      const auto v = static_cast<std::size_t>(lists_.entries[k].dst);
      const int s = head[v];
      if (s < 0) throw Error(fmt::format("internal: rank {} has no slot for rank {}", u, v));
      head[v] = next[static_cast<std::size_t>(s)];
      row[static_cast<std::size_t>(slots_[static_cast<std::size_t>(s)].colour)] =
          lists_.entries[k].message;
    }
  }
  return plan;
}

bool colour_by_alternating_paths(const SenderLists& lists, std::uint64_t budget, PlanBuilder& out) {
  const std::size_t n = lists.out_degree.size();
  const auto colours = static_cast<std::size_t>(lists.degree);
  const std::size_t words = words_for(colours);
  // at_src[c * n + u]: the receiver u sends to in colour c, -1 if none; at_dst likewise.
  BigVector<int> at_src(colours * n, -1), at_dst(colours * n, -1);
  std::vector<std::uint64_t> busy_src = busy_bitsets(n, colours), busy_dst = busy_src;
  std::vector<std::uint32_t> first_src(n, 0), first_dst(n, 0);
  std::uint64_t steps = 0;

  auto assign = [&](std::size_t u, std::size_t v, std::size_t c) {
    at_src[c * n + u] = static_cast<int>(v);
    at_dst[c * n + v] = static_cast<int>(u);
    set_busy(busy_src, words, u, c);
    set_busy(busy_dst, words, v, c);
  };
  // Swaps colours a and b on the path leaving receiver v by colour a. Flipping swaps, at every
  // vertex on the path, its a and b entries, so one pass walks and flips; only the two ends
  // change which colours they have free.
  auto flip = [&](std::size_t v, std::size_t a, std::size_t b) {
    bool receiver = true;
    std::size_t x = v, c = a, o = b;  // at x the path goes on by colour c, came by colour o
    while (true) {
      auto& table = receiver ? at_dst : at_src;
      const int next = table[c * n + x];
      table[c * n + x] = table[o * n + x];
      table[o * n + x] = next;
      if (next < 0) {  // the far end: it now has c busy and o free
        auto& bits = receiver ? busy_dst : busy_src;
        set_busy(bits, words, x, c);
        set_free(bits, receiver ? first_dst : first_src, words, x, o);
        break;
      }
      ++steps;
      x = static_cast<std::size_t>(next);
      receiver = !receiver;
      std::swap(c, o);
    }
    set_busy(busy_dst, words, v, b);
    set_free(busy_dst, first_dst, words, v, a);
  };

  const std::size_t messages = lists.entries.size();
  constexpr std::uint64_t kWarmUp = std::uint64_t{1} << 20;
  std::size_t placed = 0;
  const auto rounds =
      static_cast<std::size_t>(*std::max_element(lists.out_degree.begin(), lists.out_degree.end()));
  for (std::size_t k = 0; k < rounds; ++k)
    for (std::size_t u = 0; u < n; ++u) {
      if (k >= static_cast<std::size_t>(lists.out_degree[u])) continue;
      const auto v = static_cast<std::size_t>(lists.entries[lists.offset[u] + k].dst);
      ++placed;
      const std::size_t a = lowest_free(busy_src, first_src, words, u);
      if (!is_busy(busy_dst, words, v, a)) {
        assign(u, v, a);
        continue;
      }
      const std::size_t b = lowest_free(busy_dst, first_dst, words, v);
      if (!is_busy(busy_src, words, u, b)) {
        assign(u, v, b);
        continue;
      }
      // Out of budget, or on course to run out (dense patterns need steps all along, so this
      // hands over early and wastes little): leave it to the Euler split.
      if (steps > budget ||
          (steps > kWarmUp && static_cast<double>(steps) * static_cast<double>(messages) >
                                  static_cast<double>(budget) * static_cast<double>(placed)))
        return false;
      flip(v, a, b);
      assign(u, v, a);
    }

  for (std::size_t c = 0; c < colours; ++c)
    for (std::size_t u = 0; u < n; ++u)
      if (const int v = at_src[c * n + u]; v >= 0)
        out.add(static_cast<int>(u), v, static_cast<int>(c));
  return true;
}

namespace {

/// Whether n x Δ tables (alternating paths, SlotColouring) are worth their memory: one dense
/// rank among many sparse ones would make them far bigger than the pattern.
bool tables_fit(std::size_t ranks, int degree, std::size_t messages) {
  return static_cast<double>(ranks) * degree <=
         std::max(0x1p24, 4.0 * static_cast<double>(messages));
}

constexpr std::size_t kTryBothBelow = 1024;

/// Over ranks, the last slot + 1 of each: the delays plus the messages.
std::int64_t span_of(const SlotPlan& plan) {
  std::int64_t span = 0;
  for (const auto& row : plan.slots) span += static_cast<std::int64_t>(used_length(row));
  return span;
}

/// `plan` in `degree` slots: its sends beyond them placed where they add least, then its
/// delays reduced with at most `budget` path steps in all.
SlotColouring reduced(const Pattern& pattern, int degree, const SlotPlan& plan,
                      std::uint64_t budget) {
  SlotColouring colouring(pattern, degree);
  std::uint64_t steps = 0;
  for (const int message : colouring.load(plan)) place_cheapest(colouring, message, steps);
  reduce_delays(colouring, budget > steps ? budget - steps : 0);
  return colouring;
}

}  // namespace

bool delay_insertion_is_cheap(std::size_t ranks, int degree) {
  // In each slot every rank chooses, the one with the fewest choices first: n^2 a slot.
  return static_cast<double>(degree) * static_cast<double>(ranks) * static_cast<double>(ranks) <=
         0x1p25;
}

SlotPlan plan_optimal(const Pattern& pattern, OptimalMethod method,
                      const SlotPlan* delay_insertion) {
  const SenderLists lists = sender_lists(pattern);
  const std::size_t n = lists.out_degree.size(), messages = lists.entries.size();
  if (messages == 0) {
    SlotPlan plan;
    plan.algorithm = "optimal";
    plan.slots.resize(n);
    return plan;
  }
  const bool fit = tables_fit(n, lists.degree, messages);
  PlanBuilder builder(lists, method != OptimalMethod::EulerSplitRaw);
  bool done = false;
  if (method == OptimalMethod::AlternatingPaths) {
    done = colour_by_alternating_paths(lists, std::numeric_limits<std::uint64_t>::max(), builder);
  } else if (method == OptimalMethod::Auto && fit) {
    done = colour_by_alternating_paths(
        lists, std::max<std::uint64_t>(std::uint64_t{1} << 22, messages / 2), builder);
  }
  if (!done) colour_by_euler_split(lists, builder);
  SlotPlan coloured = builder.finish();
  if (method != OptimalMethod::Auto || !fit) return coloured;

  // Fewer delays. Delay insertion's plan, squeezed into Δ slots and its delays reduced, has
  // the fewest on nearly every pattern tried (paper 000's scale-free ones: 197-253 against
  // 211-318 from the colouring); the colouring is reduced too only where that plan is
  // missing or not better than the colouring as it is. Without delay insertion (too big a
  // pattern for it), only small patterns are worth it: on big ones the n x Δ tables miss the
  // cache at every step, and the budget buys a few moves (4096 ranks, scale-free m = 28:
  // 0.2% fewer delays for 3x the time).
  const std::uint64_t budget = std::max<std::uint64_t>(std::uint64_t{1} << 17, messages / 4);
  SlotPlan own_delay_insertion;
  if (delay_insertion == nullptr && delay_insertion_is_cheap(n, lists.degree)) {
    own_delay_insertion = plan_delay_insertion(pattern);
    delay_insertion = &own_delay_insertion;
  }
  if (delay_insertion == nullptr)
    return messages <= kTryBothBelow * 16
               ? reduced(pattern, lists.degree, coloured, budget).plan("optimal")
               : coloured;
  const SlotColouring squeezed = reduced(pattern, lists.degree, *delay_insertion, budget);
  if (squeezed.span() < span_of(coloured) && messages > kTryBothBelow)
    return squeezed.plan("optimal");
  const SlotColouring other = reduced(pattern, lists.degree, coloured, budget);
  return (other.span() < squeezed.span() ? other : squeezed).plan("optimal");
}

}  // namespace detail

SlotPlan plan_optimal(const Pattern& pattern) {
  return detail::plan_optimal(pattern, detail::OptimalMethod::Auto);
}

}  // namespace choreo
