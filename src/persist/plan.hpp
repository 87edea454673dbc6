#pragma once
// A rank's command list (private): the ops of one rank's program of a collective algorithm,
// each placed in the caller's buffers, with the dependents each releases on completion.
// PlanBuilder (plan_builder.hpp) writes it from the algorithm's per-rank code, in the rank's
// own time and memory; plan_from_schedule reads it out of a generated schedule of all ranks.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "choreo/core/compact_schedule.hpp"

namespace choreo::persist::detail {

enum class BufferId : std::uint8_t { User, Send, Scratch };

struct Place {
  BufferId buffer = BufferId::User;
  std::int64_t offset = 0;
  friend bool operator==(const Place&, const Place&) = default;
};

/// Copy moves `bytes` from `source` to `data` in this process (a gather's blocks rotated into
/// rank order, a reduce's input into its accumulator); it is skipped where either buffer is
/// absent (MPI_IN_PLACE).
enum class CommandKind : std::uint8_t { Send, Recv, Reduce, Copy };

struct Command {
  CommandKind kind = CommandKind::Send;
  int peer = 0;
  int tag = 0;
  std::int64_t bytes = 0;
  Place data;    ///< send: the bytes sent; recv: where they land; reduce: the accumulator;
                 ///< copy: the destination
  Place source;  ///< reduce: the operand (the region its receive filled); copy: the origin
  std::uint32_t dependencies = 0;
  std::vector<std::uint32_t> dependents;  ///< released when this command completes
};

struct Plan {
  std::string algorithm;  ///< "bcast:multitree", ...
  /// Why this algorithm: the model's line when it chose (choice.hpp), else "named by the
  /// caller" or the collective's fixed rule; what describe() reports.
  std::string choice;
  std::vector<Command> commands;
  std::int64_t scratch_bytes = 0;
  /// Copied from the send buffer (at initial_copy_source_offset) to the user buffer (at
  /// initial_copy_offset) before the first command: allreduce and allgather without
  /// MPI_IN_PLACE, and alltoallv's block to itself.
  std::int64_t initial_copy_bytes = 0;
  std::int64_t initial_copy_offset = 0;
  std::int64_t initial_copy_source_offset = 0;
};

/// A send or a receive as the generator made it (amount in the generator's units).
struct MessageOp {
  CommandKind kind = CommandKind::Send;
  int peer = 0;
  int tag = 0;
  std::int64_t amount = 0;
};

/// Where a message moves its bytes: algorithms place them by side and tag (the step or the
/// segment number), alltoallv by peer.
using Placer = std::function<Place(const MessageOp&)>;

/// Rank `rank`'s program as a Plan: message amounts times unit_bytes (generators that cut
/// a vector by elements are called with a count), calcs as reductions of the receive they
/// wait for (data in the user buffer at the receive's offset). Throws on ops a plan cannot
/// hold (copies, delays, irequires, calcs without a receive). Reads one rank out of a schedule
/// of all: alltoallv's way (its schedule needs every rank's counts), and the reference the
/// tests hold the per-rank plans (PlanBuilder) to.
Plan plan_from_schedule(const CompactSchedule& schedule, int rank, std::int64_t unit_bytes,
                        const Placer& place, std::string algorithm);

// ---- shared by plan_from_schedule and PlanBuilder -------------------------------------------

/// Throws the internal error of a schedule with `what` (a copy, an irequires, ...), which
/// a plan cannot run.
[[noreturn]] void unsupported(const std::string& algorithm, const char* what);

/// Records that reduction `calc` combines what receive `recv` brought (both command indices
/// of receive_of_calc, -1 while unknown); throws if the calc already waits for another.
void note_receive_of_calc(const std::string& algorithm, std::vector<std::int64_t>& receive_of_calc,
                          std::size_t calc, std::size_t recv);

/// Completes a plan whose messages are placed: every reduction takes the bytes and the
/// region of its receive (receive_of_calc, indexed by command) and accumulates into the user
/// buffer at the same offset.
void finish_plan(Plan& plan, const std::vector<std::int64_t>& receive_of_calc);

/// Cuts every send, receive and reduction of more than `largest` bytes into pieces of at most
/// that many (whole elements of `unit` bytes each), for MPI's int counts: the pieces of one
/// command follow each other (each released by the one before, the last releasing what the
/// whole released), so the pieces of a message are posted in the same order on both sides and
/// MPI's non-overtaking rule pairs them. Copies (memcpy) stay whole. Throws when `largest`
/// holds no element.
void split_messages(Plan& plan, std::int64_t largest, std::int64_t unit);

}  // namespace choreo::persist::detail
