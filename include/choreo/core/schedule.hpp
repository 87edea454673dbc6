#pragma once
// The schedule IR: one program of operations per rank. Every capability of choreo
// produces or consumes a Schedule; the JSON and GOAL formats are its stable spellings.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace choreo {

/// MPI_ANY_SOURCE / MPI_ANY_TAG in a receive, spelled -1 as in GOAL.
inline constexpr int kAny = -1;
/// A buffer id of kAutoBuffer lets the executor give the op a region of its own.
inline constexpr int kAutoBuffer = -1;
/// Ops without a time slot (slots come from time-slotted schedulers, paper 000).
inline constexpr int kNoSlot = -1;

enum class OpKind : std::uint8_t { Send, Recv, Delay, Calc, Copy };

std::string_view to_string(OpKind kind);

/// A byte range of one of a rank's buffers: [offset, offset + bytes of the op).
struct Region {
  int buffer = kAutoBuffer;
  std::int64_t offset = 0;
  friend bool operator==(const Region&, const Region&) = default;
};

struct Op {
  std::int64_t id = 0;  ///< unique within its rank's program
  OpKind kind = OpKind::Calc;
  int peer = 0;                  ///< send: destination; recv: source or kAny
  int tag = 0;                   ///< send: >= 0; recv: >= 0 or kAny
  std::int64_t bytes = 0;        ///< send, recv, copy
  std::int64_t nanoseconds = 0;  ///< delay, calc (choreo keeps time in integer ns, like LogGOPSim)
  int slot = kNoSlot;
  Region region;  ///< send: data sent; recv: where data lands; copy: destination
  Region source;  ///< copy: where the bytes come from
  int cpu = 0;    ///< GOAL's cpu number, kept so GOAL files travel unchanged
  int nic = 0;    ///< GOAL's nic number (send and recv only)
  std::vector<std::int64_t> requires_completed;  ///< ids that must have completed (GOAL `requires`)
  std::vector<std::int64_t> requires_started;    ///< ids that must have started (GOAL `irequires`)
  /// A first-of group: ids of which at least one must have completed (empty: no such
  /// condition). It adds to the two lists above, which must all be met as well, so an op
  /// starts once every `requires_completed` op completed, every `requires_started` op
  /// started and, if the group is non-empty, its first member completed. The other members
  /// still run to completion (a redundant copy still arrives); they just gate nothing here.
  /// GOAL has no such dependency: its writer keeps only the first member as a `requires`
  /// (docs/formats.md), so list the member the op waits for without noise first.
  std::vector<std::int64_t> requires_any;

  friend bool operator==(const Op&, const Op&) = default;

  bool is_message() const { return kind == OpKind::Send || kind == OpKind::Recv; }
  bool is_timed() const { return kind == OpKind::Delay || kind == OpKind::Calc; }
};

struct Program {
  std::vector<Op> ops;
  friend bool operator==(const Program&, const Program&) = default;
};

struct Schedule {
  int ranks = 0;
  std::string algorithm;          ///< who made it ("direct", "delay-insertion", ...); informative
  std::vector<Program> programs;  ///< programs[r] is rank r's program; size() == ranks

  friend bool operator==(const Schedule&, const Schedule&) = default;

  /// Number of send ops over all ranks.
  std::int64_t message_count() const;
  /// Bytes of all send ops over all ranks.
  std::int64_t message_bytes() const;
};

/// Throws choreo::Error, naming `format` ("JSON", "GOAL"), the rank and the op, when the
/// schedule has more ranks than choreo takes or an op's size, offset or time is beyond
/// choreo's limits (docs/formats.md, Limits): the writers refuse what the readers would.
void check_writable(const Schedule& schedule, std::string_view format);

/// "send 64 B to 3 tag 0", "recv 64 B from any tag 2", "delay 400000 ns": for error messages.
/// An op with a first-of group says so: "calc 0 ns, after the first of ops 5, 9".
std::string describe(const Op& op);

}  // namespace choreo
