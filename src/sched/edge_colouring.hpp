#pragma once
// Internal to plan_optimal (optimal.cpp, euler_split.cpp); the unit tests include it to run each
// colouring on its own. See optimal.cpp for the algorithms and their costs.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../core/huge_pages.hpp"
#include "choreo/core/pattern.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo::detail {

/// Every rank's messages, grouped by sender: rank r's are entries[offset[r] .. offset[r+1]),
/// in ring order (destinations r+1, r+2, ...; equal destinations by message index).
struct SenderLists {
  struct Entry {
    int message;
    int dst;
  };
  std::vector<std::size_t> offset;
  BigVector<Entry> entries;  ///< big: huge pages cut the page faults of filling it
  std::vector<int> out_degree, in_degree;
  int degree = 0;  ///< the largest in- or out-degree: the number of colours
};

SenderLists sender_lists(const Pattern& pattern);

/// The slots already taken at each rank, on one side (its sends or its receives). A rank with
/// at least slots/64 messages on that side gets a bitset, the others a sorted list: at most 8
/// bytes a message (and a word a rank), however many ranks and slots.
class BusySlots {
 public:
  BusySlots(const std::vector<int>& degree, std::size_t slots);
  /// The lowest slot >= t free at x (`slots` or more if none).
  std::size_t next_free(std::size_t x, std::size_t t) const;
  void take(std::size_t x, std::size_t t);
  /// The bitset of x, nullptr for a list; first_word(x): the words below it are all busy.
  const std::uint64_t* bits(std::size_t x) const;
  std::size_t first_word(std::size_t x) const;

 private:
  std::size_t slots_, words_;
  std::vector<std::size_t> row_;  ///< x -> its bitset's first word in bits_, or its list's start
  std::vector<bool> dense_;
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint32_t> first_;  ///< per rank: for a bitset, words below are all busy
  std::vector<int> list_;             ///< the sorted lists, each with room for its degree
  std::vector<std::uint32_t> size_;   ///< per rank: its list's length
};

/// Receives a colouring one colour class after another (colours in nondecreasing order), moves
/// each send to the lowest slot still free at both ends when `compact` (fewer delays, never
/// more slots), and builds the SlotPlan.
class PlanBuilder {
 public:
  PlanBuilder(const SenderLists& lists, bool compact);
  void add(int src, int dst, int colour);
  SlotPlan finish();

 private:
  const SenderLists& lists_;
  std::size_t n_;
  bool compact_;
  BusySlots sending_, receiving_;
  struct Slot {
    int dst;
    int colour;
  };
  BigVector<Slot> slots_;  ///< grouped by sender like lists_.entries
  std::vector<std::size_t> cursor_;
  std::vector<int> last_;  ///< per sender: its highest slot, -1 if none yet
  std::size_t added_ = 0;
};

/// Alternating-path colouring; false (and nothing added to `out`) if it would need more than
/// `budget` path steps.
bool colour_by_alternating_paths(const SenderLists& lists, std::uint64_t budget, PlanBuilder& out);
/// Euler-partition divide and conquer; always succeeds.
void colour_by_euler_split(const SenderLists& lists, PlanBuilder& out);

enum class OptimalMethod {
  Auto,              ///< what plan_optimal does: a colouring, then fewer delays
  AlternatingPaths,  ///< alternating paths only, no budget, compaction as in Auto
  EulerSplit,        ///< Euler split only
  EulerSplitRaw,     ///< Euler split without the compaction (the bare colouring)
};
/// Whether delay insertion is cheap on a pattern of `ranks` ranks and degree bound `degree`:
/// it takes about degree x ranks^2 steps, and runs where that stays within milliseconds.
bool delay_insertion_is_cheap(std::size_t ranks, int degree);

/// Auto also reduces the colouring's delays, and tries delay insertion's plan squeezed into Δ
/// slots: `delay_insertion` if the caller has it, else made here where it is cheap.
SlotPlan plan_optimal(const Pattern& pattern, OptimalMethod method,
                      const SlotPlan* delay_insertion = nullptr);

}  // namespace choreo::detail
