#include "choreo/core/schedule.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "choreo/core/checked.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"

namespace choreo {

std::string_view to_string(OpKind kind) {
  switch (kind) {
    case OpKind::Send:
      return "send";
    case OpKind::Recv:
      return "recv";
    case OpKind::Delay:
      return "delay";
    case OpKind::Calc:
      return "calc";
    case OpKind::Copy:
      return "copy";
  }
  return "unknown";
}

std::int64_t Schedule::message_count() const {
  std::int64_t count = 0;
  for (const auto& program : programs)
    for (const auto& op : program.ops) count += op.kind == OpKind::Send ? 1 : 0;
  return count;
}

std::int64_t Schedule::message_bytes() const {
  std::int64_t bytes = 0;
  for (const auto& program : programs)
    for (const auto& op : program.ops)
      if (op.kind == OpKind::Send) bytes = checked_add(bytes, op.bytes, "the schedule's bytes");
  return bytes;
}

namespace {
std::string any_or(int value) { return value == kAny ? std::string("any") : std::to_string(value); }

std::string describe_kind(const Op& op) {
  switch (op.kind) {
    case OpKind::Send:
      return fmt::format("send {} B to {} tag {}", op.bytes, op.peer, op.tag);
    case OpKind::Recv:
      return fmt::format("recv {} B from {} tag {}", op.bytes, any_or(op.peer), any_or(op.tag));
    case OpKind::Delay:
    case OpKind::Calc:
      return fmt::format("{} {} ns", to_string(op.kind), op.nanoseconds);
    case OpKind::Copy:
      return fmt::format("copy {} B", op.bytes);
  }
  return "unknown op";
}
}  // namespace

std::string describe(const Op& op) {
  if (op.requires_any.empty()) return describe_kind(op);
  // The group decides when the op may start, which is what an error about it is usually
  // about (a deadlock, a cycle), so it is part of the description.
  return fmt::format("{}, after the first of ops {}", describe_kind(op),
                     fmt::join(op.requires_any, ", "));
}

void check_writable(const Schedule& schedule, std::string_view format) {
  if (schedule.ranks > limits::kMaxRanks)
    throw Error(
        fmt::format("cannot write the schedule as {}: it has {} ranks, more than choreo "
                    "reads back (2^24; docs/formats.md, Limits)",
                    format, schedule.ranks));
  for (std::size_t r = 0; r < schedule.programs.size(); ++r)
    for (const Op& op : schedule.programs[r].ops) {
      const bool bytes_fit = op.bytes <= limits::kMaxBytes &&
                             op.region.offset <= limits::kMaxBytes &&
                             op.source.offset <= limits::kMaxBytes;
      if (bytes_fit && op.nanoseconds <= limits::kMaxNanoseconds) continue;
      throw Error(
          fmt::format("cannot write the schedule as {}: rank {}, op {} ({}) has a size, "
                      "offset or time beyond choreo's limits (2^50 bytes, 10^15 ns; "
                      "docs/formats.md, Limits), which no reader takes back",
                      format, r, op.id, describe(op)));
    }
}

}  // namespace choreo
