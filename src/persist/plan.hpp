#pragma once
// A rank's command list (private): the ops of one rank's program in a generated schedule,
// each placed in the caller's buffers, with the dependents each releases on completion.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "choreo/sim/compact.hpp"

namespace choreo::persist::detail {

enum class BufferId : std::uint8_t { User, Send, Scratch };

struct Place {
  BufferId buffer = BufferId::User;
  std::int64_t offset = 0;
};

enum class CommandKind : std::uint8_t { Send, Recv, Reduce };

struct Command {
  CommandKind kind = CommandKind::Send;
  int peer = 0;
  int tag = 0;
  std::int64_t bytes = 0;
  Place data;    ///< send: the bytes sent; recv: where they land; reduce: the accumulator
  Place source;  ///< reduce: the operand (the region its receive filled)
  std::uint32_t dependencies = 0;
  std::vector<std::uint32_t> dependents;  ///< released when this command completes
};

struct Plan {
  std::string algorithm;  ///< "bcast:multitree", ...
  std::vector<Command> commands;
  std::int64_t scratch_bytes = 0;
  /// Copied from the send buffer (at initial_copy_source_offset) to the user buffer (at
  /// initial_copy_offset) before the first command: allreduce and allgather without
  /// MPI_IN_PLACE, and alltoallv's block to itself.
  std::int64_t initial_copy_bytes = 0;
  std::int64_t initial_copy_offset = 0;
  std::int64_t initial_copy_source_offset = 0;
};

/// Where the message op `op` of the schedule moves its bytes.
using Placer = std::function<Place(const sim::CompactSchedule&, sim::OpIndex op)>;

/// Rank `rank`'s program as a Plan: message amounts times unit_bytes (generators that cut
/// a vector by elements are called with a count), calcs as reductions of the receive they
/// wait for (data in the user buffer at the receive's offset). Throws on ops a plan cannot
/// hold (copies, delays, irequires, calcs without a receive).
Plan plan_from_schedule(const sim::CompactSchedule& schedule, int rank, std::int64_t unit_bytes,
                        const Placer& place, std::string algorithm);

}  // namespace choreo::persist::detail
