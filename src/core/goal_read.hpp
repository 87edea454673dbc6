#pragma once
// Private to choreo: the GOAL reader hands each rank block to a sink as the block ends, so a
// caller can build its own form without a Schedule in between. schedule_from_goal's sink
// builds a Schedule; the simulator's builds a CompactSchedule straight from the text, with
// no per-op heap allocation (src/sim/schedule_file.cpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/core/schedule.hpp"

namespace choreo::detail {

/// A dependency inside one rank block, by op positions (program order, from 0).
struct GoalDependency {
  /// The declaration order is the order in which compact() adds an op's dependencies.
  enum class Kind : std::uint8_t { Completed, Started, Any };
  std::uint32_t dependent = 0;
  std::uint32_t target = 0;
  Kind kind = Kind::Completed;
};

/// One `rank R { ... }` block, complete. Its storage is reused for the next block.
struct GoalBlock {
  int rank = 0;
  /// Program order. Kind, size, time, peer, tag, cpu, nic, slot and regions are set; an op
  /// labelled l<N> or m<N> has that id, others are listed in needs_fresh_id; the dependency
  /// lists are empty (they are in `dependencies`).
  std::vector<Op> ops;
  std::vector<std::size_t> needs_fresh_id;
  std::vector<std::int64_t> label_ids;  ///< the ids l<N>/m<N> labels gave, in any order
  /// In file order; first-of groups resolved and the `requires` standing in for each group
  /// (goal_requires) already removed.
  std::vector<GoalDependency> dependencies;
};

class GoalSink {
 public:
  virtual ~GoalSink() = default;
  virtual void num_ranks(int ranks) = 0;
  virtual void algorithm(std::string name) = 0;
  /// A block, in file order (not necessarily rank order). It may be modified.
  virtual void block(GoalBlock& block) = 0;
};

/// Parses GOAL text into `sink`; errors name the line ("line 12: ..."). After each block,
/// `consumed(offset)` is called (when set) with the offset up to which the text is no longer
/// read, so a caller reading a mapped file can release those pages.
void read_goal(std::string_view text, GoalSink& sink,
               const std::function<void(std::size_t)>& consumed = {});

/// The ids schedule_from_goal gives ops without an l<N>/m<N> label: the smallest ids no such
/// label uses, in program order.
void assign_fresh_ids(GoalBlock& block);

}  // namespace choreo::detail
