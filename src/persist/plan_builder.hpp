#pragma once
// One rank's Plan written straight from an algorithm's per-rank code (private): a
// coll::detail::ProgramBuilder whose ops become commands as they are added, placed by the
// collective's Placer. A rank thus builds its command list in the time and memory of its own
// messages, where reading it out of a generated schedule (plan_from_schedule) first builds
// every rank's program: O(P x segments) for a broadcast.
#include <cstdint>
#include <string>
#include <vector>

#include "plan.hpp"

namespace choreo::persist::detail {

class PlanBuilder {
 public:
  /// Message amounts are multiplied by unit_bytes (generators that cut a vector by elements
  /// are run on a count); `algorithm` names the plan ("bcast:multitree", ...).
  PlanBuilder(std::string algorithm, std::int64_t unit_bytes, Placer place);

  std::uint32_t send(int peer, std::int64_t amount, int tag);
  std::uint32_t recv(int peer, std::int64_t amount, int tag);
  /// A reduction; it combines the receive it will be made to wait for.
  std::uint32_t calc(std::int64_t nanoseconds);
  /// A local copy (not part of the algorithms' per-rank code: the collectives add them around
  /// it, e.g. a gather's rotation into rank order).
  std::uint32_t copy(Place from, Place to, std::int64_t bytes);
  /// The commands so far (to find where copies go).
  const std::vector<Command>& commands() const { return plan_.commands; }
  /// Command `op` starts only after command `dependency` completed.
  void requires_completed(std::uint32_t op, std::uint32_t dependency);

  /// The plan: reductions take their receive's bytes and place (as plan_from_schedule's do).
  Plan finish() &&;

 private:
  std::uint32_t message(CommandKind kind, int peer, std::int64_t amount, int tag);
  std::uint32_t add(Command command);

  Plan plan_;
  std::int64_t unit_bytes_;
  Placer place_;
  std::vector<std::int64_t> receive_of_calc_;  ///< per command, -1 unless a reduction's is known
};

}  // namespace choreo::persist::detail
