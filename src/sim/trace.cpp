#include "choreo/sim/trace.hpp"

#include <fmt/format.h>

#include <vector>

#include "choreo/error.hpp"

namespace choreo::sim {
namespace {

void require_recorded(const CompactSchedule& s, const SimResult& r) {
  if (r.op_start.size() != s.op_count() || r.op_end.size() != s.op_count())
    throw Error("per-op times were not recorded: simulate with record_ops");
}

std::string label(const CompactSchedule& s, OpIndex op) {
  switch (s.kind(op)) {
    case OpKind::Send:
      return fmt::format("send {} B to {} tag {}", s.amount(op), s.peer(op), s.tag(op));
    case OpKind::Recv:
      return fmt::format("recv {} B from {} tag {}", s.amount(op), s.peer(op), s.tag(op));
    case OpKind::Copy:
      return fmt::format("copy {} B", s.amount(op));
    default:
      return fmt::format("{} {} ns", to_string(s.kind(op)), s.amount(op));
  }
}

}  // namespace

std::string ops_csv(const CompactSchedule& s, const SimResult& r) {
  require_recorded(s, r);
  std::string out = "rank,op,kind,peer,tag,amount,start_ns,end_ns\n";
  for (int rank = 0; rank < s.ranks(); ++rank)
    for (OpIndex i = s.first_op(rank); i < s.first_op(rank + 1); ++i)
      out +=
          fmt::format("{},{},{},{},{},{},{},{}\n", rank, i - s.first_op(rank), to_string(s.kind(i)),
                      s.peer(i), s.tag(i), s.amount(i), r.op_start[i], r.op_end[i]);
  return out;
}

std::string chrome_trace(const CompactSchedule& s, const SimResult& r) {
  require_recorded(s, r);
  // Ops with a first-of group say so: in a trace, a marker that starts long before some of
  // its group's members end is the point of the group, not a bug.
  std::vector<std::uint32_t> group_size;
  if (s.has_any_groups()) {
    group_size.assign(s.op_count(), 0);
    for (OpIndex i = 0; i < s.op_count(); ++i)
      s.for_each_any_dependent(i, [&](OpIndex d) { ++group_size[d]; });
  }
  const auto name = [&](OpIndex i) {
    return group_size.empty() || group_size[i] == 0
               ? label(s, i)
               : fmt::format("{}, first of {}", label(s, i), group_size[i]);
  };
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first = true;
  for (int rank = 0; rank < s.ranks(); ++rank) {
    out += fmt::format(
        "{}{{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": {}, "
        "\"args\": {{\"name\": \"rank {}\"}}}}",
        first ? "" : ",\n", rank, rank);
    first = false;
    for (OpIndex i = s.first_op(rank); i < s.first_op(rank + 1); ++i)
      out += fmt::format(
          ",\n{{\"name\": \"{}\", \"cat\": \"{}\", \"ph\": \"X\", \"pid\": 0, "
          "\"tid\": {}, \"ts\": {:.3f}, \"dur\": {:.3f}}}",
          name(i), to_string(s.kind(i)), rank, static_cast<double>(r.op_start[i]) / 1e3,
          static_cast<double>(r.op_end[i] - r.op_start[i]) / 1e3);
  }
  out += "\n]}\n";
  return out;
}

}  // namespace choreo::sim
