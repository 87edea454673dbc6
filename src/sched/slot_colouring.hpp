#pragma once
// Internal to plan_optimal: a contention-free plan of a fixed number of slots held as a proper
// edge colouring of the bipartite graph senders -> receivers (a slot a colour), changed in place
// by moving sends and by Kempe-chain swaps, so that delays can be taken out of a plan without
// making it longer (delay_reduction.cpp). Tables are n x slots, colour-major.
#include <cstdint>
#include <string>
#include <vector>

#include "choreo/core/pattern.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo::detail {

class SlotColouring {
 public:
  static constexpr int kUnplaced = -1;

  /// Nothing placed yet. The pattern must outlive the colouring.
  SlotColouring(const Pattern& pattern, int slots);

  /// Places the plan's sends that fall in the first slots() slots; returns the others (their
  /// message indices, in slot order), left unplaced. The plan must be contention-free.
  std::vector<int> load(const SlotPlan& plan);
  /// Every rank's sends in slot order, delays in between, each row ending with its last send.
  SlotPlan plan(const std::string& algorithm) const;

  int slots() const { return slots_; }
  const Pattern& pattern() const { return pattern_; }
  int slot_of(int message) const { return slot_[static_cast<std::size_t>(message)]; }
  /// The message the rank sends in the slot, -1 if none.
  int sent(int rank, int slot) const { return at_src(slot, rank); }
  bool sender_free(int rank, int slot) const { return at_src(slot, rank) < 0; }
  bool receiver_free(int rank, int slot) const { return at_dst(slot, rank) < 0; }
  /// The rank's highest send slot, -1 if it sends nothing (yet).
  int last(int rank) const { return last_[static_cast<std::size_t>(rank)]; }
  /// The rank's highest send slot other than `slot`, -1 if none.
  int last_without(int rank, int slot) const;
  /// Over all ranks, their highest send slot + 1: the delays plus the sends placed.
  std::int64_t span() const;

  void place(int message, int slot);
  void remove(int message);

  /// Where the path leaving receiver `v` by colour x, then y, x, ... ends (v busy in x, free
  /// in y): that vertex, whether it is a sender, and how many messages the path has (appended
  /// to `messages` if given, from v on). In a bipartite graph it is a path, never a cycle.
  struct PathEnd {
    int rank = 0;
    bool sender = false;
    std::size_t length = 0;
  };
  PathEnd walk(int v, int x, int y, std::vector<int>* messages = nullptr) const;
  /// Swaps colours x and y on that path: v is then free in x. Contention-free still.
  void flip(int v, int x, int y);

 private:
  int at_src(int slot, int rank) const { return at_src_[index(slot, rank)]; }
  int at_dst(int slot, int rank) const { return at_dst_[index(slot, rank)]; }
  std::size_t index(int slot, int rank) const {
    return static_cast<std::size_t>(slot) * n_ + static_cast<std::size_t>(rank);
  }

  const Pattern& pattern_;
  std::size_t n_;
  int slots_;
  std::vector<int> at_src_, at_dst_;  ///< [slot * n + rank] -> message, -1 if none
  std::vector<int> slot_;             ///< per message, kUnplaced if none
  std::vector<int> last_;             ///< per rank: its highest send slot, -1 if none
};

/// Places `message` (unplaced) in the slot that adds least to the span: a slot free at its
/// sender and, if busy at its receiver, freed there by the Kempe swap whose far end gets the
/// cheapest change. Adds its work to `steps`: a step a swap priced plus its path's length.
void place_cheapest(SlotColouring& colouring, int message, std::uint64_t& steps);

/// Local search: moves each rank's last send into an empty slot of its own, directly or by a
/// Kempe swap at the receiver, whenever that shortens the span (the rank's plan ends earlier
/// by more than the swap lengthens another's), until no move does or `budget` steps (as
/// place_cheapest counts them) are spent. The plan stays contention-free and no longer than
/// slots().
void reduce_delays(SlotColouring& colouring, std::uint64_t budget);

}  // namespace choreo::detail
