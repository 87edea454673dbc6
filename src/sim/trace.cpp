#include "choreo/sim/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <nlohmann/json.hpp>
#include <queue>
#include <utility>
#include <vector>

#include "choreo/core/error.hpp"

namespace choreo::sim {
namespace {

using TraceEvent = nlohmann::ordered_json;  // keys in the order written: name, cat, ph, ... args

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

/// The order of a rank's tracks, top to bottom: its messages, then what keeps its CPU busy.
constexpr std::array kTrackKinds{OpKind::Send, OpKind::Recv, OpKind::Delay, OpKind::Calc,
                                 OpKind::Copy};

/// Which lane (0, 1, ...) of its kind's tracks each op of `ops` goes on: ops by start time, each
/// on the first lane whose last slice has ended by its start (greedy interval partitioning),
/// so a lane's slices never overlap and no other layout needs fewer lanes. Returns the lanes,
/// parallel to `ops`, and how many there are.
std::pair<std::vector<std::uint32_t>, std::uint32_t> assign_lanes(const std::vector<OpIndex>& ops,
                                                                  const SimResult& r) {
  std::vector<std::size_t> by_start(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) by_start[i] = i;
  std::sort(by_start.begin(), by_start.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(r.op_start[ops[a]], ops[a]) < std::pair(r.op_start[ops[b]], ops[b]);
  });
  using Busy = std::pair<std::int64_t, std::uint32_t>;  // (end of its last slice, lane)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> idle;
  std::vector<std::uint32_t> lane(ops.size());
  std::uint32_t lanes = 0;
  for (const std::size_t i : by_start) {
    const OpIndex op = ops[i];
    while (!busy.empty() && busy.top().first <= r.op_start[op]) {
      idle.push(busy.top().second);
      busy.pop();
    }
    if (idle.empty()) {
      lane[i] = lanes++;
    } else {
      lane[i] = idle.top();
      idle.pop();
    }
    busy.emplace(r.op_end[op], lane[i]);
  }
  return {std::move(lane), lanes};
}

/// Nanoseconds as the format's microseconds; a double holds every ns of a run shorter than
/// about a hundred days exactly enough for a reader to round back to it.
double microseconds(std::int64_t ns) { return static_cast<double>(ns) / 1e3; }

}  // namespace

std::vector<int> op_slots(const Schedule& schedule) {
  std::vector<int> slots;
  for (const Program& program : schedule.programs)
    for (const Op& op : program.ops) slots.push_back(op.slot);
  return slots;
}

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

std::string chrome_trace(const CompactSchedule& s, const SimResult& r, std::span<const int> slots) {
  require_recorded(s, r);
  if (r.matched_receive.size() != s.op_count())
    throw Error("the receive each send matched was not recorded: simulate with record_ops");
  if (!slots.empty() && slots.size() != s.op_count())
    throw Error(fmt::format("{} slots for {} ops", slots.size(), s.op_count()));
  // Ops with a first-of group say so: in a trace, a marker that starts long before some of
  // its group's members end is the point of the group, not a bug.
  std::vector<std::uint32_t> group_size;
  if (s.has_any_groups()) {
    group_size.assign(s.op_count(), 0);
    for (OpIndex i = 0; i < s.op_count(); ++i)
      s.for_each_any_dependent(i, [&](OpIndex d) { ++group_size[d]; });
  }

  // Tracks. A rank's ops overlap: its receives are posted long before their messages come,
  // and a rendezvous send lasts until its receive is matched. Complete ("X") slices on one
  // thread must nest or Perfetto misdraws them, so rank R is a process, "rank R", with a
  // thread per kind of op, and ops of a kind that still overlap go on further numbered lanes
  // ("send", "send 2", ...). Async slices would need no lanes, but Perfetto lists them apart
  // from the process's threads, and both viewers bind flow arrows only to thread slices:
  // threads keep a rank's work together, a row per kind, with an arrow per message. pid 0
  // and tid 0 are special to Perfetto (the idle task), and a tid equal to a pid reads as that
  // process's main thread, so ranks are pids 1..R and tracks take tids from R + 1 on.
  const auto pid_of = [](int rank) { return static_cast<std::int64_t>(rank) + 1; };
  std::vector<std::int64_t> tid_of(s.op_count());
  std::int64_t next_tid = pid_of(s.ranks());
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first_event = true;
  // Events are built one at a time and appended, so a trace of millions of ops never sits in
  // memory as one JSON tree.
  const auto write = [&](const TraceEvent& event) {
    if (!first_event) out += ",\n";
    first_event = false;
    out += event.dump();
  };

  for (int rank = 0; rank < s.ranks(); ++rank) {
    const std::int64_t pid = pid_of(rank);
    write({{"name", "process_name"},
           {"ph", "M"},
           {"pid", pid},
           {"tid", pid},
           {"args", {{"name", fmt::format("rank {}", rank)}}}});
    write({{"name", "process_sort_index"},
           {"ph", "M"},
           {"pid", pid},
           {"tid", pid},
           {"args", {{"sort_index", rank}}}});
    int thread_order = 0;
    for (const OpKind kind : kTrackKinds) {
      std::vector<OpIndex> ops;
      for (OpIndex i = s.first_op(rank); i < s.first_op(rank + 1); ++i)
        if (s.kind(i) == kind) ops.push_back(i);
      const auto [lane, lanes] = assign_lanes(ops, r);
      const std::int64_t first_tid = next_tid + 1;
      for (std::size_t i = 0; i < ops.size(); ++i) tid_of[ops[i]] = first_tid + lane[i];
      for (std::uint32_t l = 0; l < lanes; ++l) {
        const std::int64_t tid = ++next_tid;
        const std::string name =
            l == 0 ? std::string(to_string(kind)) : fmt::format("{} {}", to_string(kind), l + 1);
        write({{"name", "thread_name"},
               {"ph", "M"},
               {"pid", pid},
               {"tid", tid},
               {"args", {{"name", name}}}});
        write({{"name", "thread_sort_index"},
               {"ph", "M"},
               {"pid", pid},
               {"tid", tid},
               {"args", {{"sort_index", thread_order++}}}});
      }
    }
  }

  // A flow's ends sit mid-slice: strictly inside any slice of 2 ns or more, so each binds to
  // its own slice even where the slice before it on the lane ends as it starts, whichever
  // order a viewer takes events of one timestamp in.
  std::vector<OpIndex> matched_send(s.op_count(), kUnmatched);
  for (OpIndex i = 0; i < s.op_count(); ++i)
    if (r.matched_receive[i] != kUnmatched) matched_send[r.matched_receive[i]] = i;
  const auto middle = [&](OpIndex op) {
    return microseconds(r.op_start[op] + (r.op_end[op] - r.op_start[op]) / 2);
  };
  // One object per kind of event, refilled for every op: a trace of millions of ops is
  // written several times faster than with objects built afresh.
  TraceEvent slice = {{"name", ""}, {"cat", ""}, {"ph", "X"},  {"pid", 0},
                      {"tid", 0},   {"ts", 0.0}, {"dur", 0.0}, {"args", TraceEvent::object()}};
  TraceEvent flow_start = {{"name", "message"}, {"cat", "message"}, {"ph", "s"}, {"id", 0},
                           {"pid", 0},          {"tid", 0},         {"ts", 0.0}};
  TraceEvent flow_end = {{"name", "message"}, {"cat", "message"}, {"ph", "f"}, {"bp", "e"},
                         {"id", 0},           {"pid", 0},         {"tid", 0},  {"ts", 0.0}};
  for (int rank = 0; rank < s.ranks(); ++rank) {
    const std::int64_t pid = pid_of(rank);
    slice["pid"] = flow_start["pid"] = flow_end["pid"] = pid;
    for (OpIndex i = s.first_op(rank); i < s.first_op(rank + 1); ++i) {
      const OpKind kind = s.kind(i);
      TraceEvent& args = slice["args"];
      args = {{"op", i - s.first_op(rank)}};
      switch (kind) {
        case OpKind::Send:
        case OpKind::Recv:
          args["bytes"] = s.amount(i);
          args["peer"] = s.peer(i);
          args["tag"] = s.tag(i);
          break;
        case OpKind::Copy:
          args["bytes"] = s.amount(i);
          break;
        default:
          args["ns"] = s.amount(i);
      }
      if (!slots.empty() && slots[i] != kNoSlot) args["slot"] = slots[i];
      std::string name = label(s, i);
      if (!group_size.empty() && group_size[i] > 0) {
        name += fmt::format(", first of {}", group_size[i]);
        args["first_of"] = group_size[i];
      }
      slice["name"] = std::move(name);
      slice["cat"] = to_string(kind);
      slice["tid"] = tid_of[i];
      slice["ts"] = microseconds(r.op_start[i]);
      slice["dur"] = microseconds(r.op_end[i] - r.op_start[i]);
      write(slice);
      // A message: a flow from its send (id: the send's op index over all ranks) to the
      // receive the simulator matched it with, each end written after its own slice.
      if (kind == OpKind::Send && r.matched_receive[i] != kUnmatched) {
        flow_start["id"] = i;
        flow_start["tid"] = tid_of[i];
        flow_start["ts"] = middle(i);
        write(flow_start);
      }
      if (kind == OpKind::Recv && matched_send[i] != kUnmatched) {
        flow_end["id"] = matched_send[i];
        flow_end["tid"] = tid_of[i];
        flow_end["ts"] = middle(i);
        write(flow_end);
      }
    }
  }
  out += "\n]}\n";
  return out;
}

}  // namespace choreo::sim
