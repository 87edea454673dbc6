#include "plan.hpp"

#include <fmt/format.h>

#include <limits>

#include "choreo/core/error.hpp"

namespace choreo::persist::detail {

void unsupported(const std::string& algorithm, const char* what) {
  throw Error(
      fmt::format("internal error: the schedule of {} has {}, which a persistent "
                  "collective cannot run; please report it",
                  algorithm, what));
}

void note_receive_of_calc(const std::string& algorithm, std::vector<std::int64_t>& receive_of_calc,
                          std::size_t calc, std::size_t recv) {
  if (receive_of_calc[calc] >= 0) unsupported(algorithm, "a calc that waits for two receives");
  receive_of_calc[calc] = static_cast<std::int64_t>(recv);
}

void finish_plan(Plan& plan, const std::vector<std::int64_t>& receive_of_calc) {
  for (std::size_t i = 0; i < plan.commands.size(); ++i) {
    Command& command = plan.commands[i];
    if (command.kind != CommandKind::Reduce) continue;
    if (receive_of_calc[i] < 0) unsupported(plan.algorithm, "a calc that waits for no receive");
    const Command& received = plan.commands[static_cast<std::size_t>(receive_of_calc[i])];
    command.bytes = received.bytes;
    command.source = received.data;
    command.data = Place{BufferId::User, received.data.offset};
  }
}

void split_messages(Plan& plan, std::int64_t largest, std::int64_t unit) {
  const std::int64_t piece = unit > 0 ? largest / unit * unit : 0;
  if (piece <= 0)
    throw Error(fmt::format("{}: the largest message ({} bytes) holds no element of {} bytes",
                            plan.algorithm, largest, unit));
  const std::size_t count = plan.commands.size();
  for (std::size_t i = 0; i < count; ++i) {
    if (plan.commands[i].kind == CommandKind::Copy || plan.commands[i].bytes <= largest) continue;
    const Command whole = plan.commands[i];
    plan.commands[i].bytes = piece;
    plan.commands[i].dependents.clear();
    auto previous = static_cast<std::uint32_t>(i);
    for (std::int64_t at = piece; at < whole.bytes; at += piece) {
      Command next = whole;
      next.bytes = std::min(piece, whole.bytes - at);
      next.data.offset += at;
      if (whole.kind == CommandKind::Reduce) next.source.offset += at;
      next.dependencies = 1;
      next.dependents.clear();
      plan.commands.push_back(std::move(next));
      const auto index = static_cast<std::uint32_t>(plan.commands.size() - 1);
      plan.commands[previous].dependents = {index};
      previous = index;
    }
    plan.commands[previous].dependents = whole.dependents;
  }
}

Plan plan_from_schedule(const CompactSchedule& schedule, int rank, std::int64_t unit_bytes,
                        const Placer& place, std::string algorithm) {
  Plan plan;
  plan.algorithm = std::move(algorithm);
  const OpIndex first = schedule.first_op(rank), end = schedule.first_op(rank + 1);
  plan.commands.resize(end - first);
  std::vector<std::int64_t> receive_of_calc(end - first, -1);
  for (OpIndex op = first; op < end; ++op) {
    Command& command = plan.commands[op - first];
    const OpKind kind = schedule.kind(op);
    if (kind == OpKind::Send || kind == OpKind::Recv) {
      command.kind = kind == OpKind::Send ? CommandKind::Send : CommandKind::Recv;
      command.peer = schedule.peer(op);
      command.tag = schedule.tag(op);
      command.bytes = schedule.amount(op) * unit_bytes;
      command.data = place({command.kind, command.peer, command.tag, schedule.amount(op)});
    } else if (kind == OpKind::Calc) {
      command.kind = CommandKind::Reduce;
    } else {
      unsupported(plan.algorithm, "a copy or a delay");
    }
    command.dependencies = schedule.dependency_count(op);
    schedule.for_each_started_dependent(
        op, [&](OpIndex) { unsupported(plan.algorithm, "an irequires dependency"); });
    // A first-of group (Op::requires_any) would need commands released by whichever member
    // completes first; the dependency counts here release on all, so it would hang.
    schedule.for_each_any_dependent(
        op, [&](OpIndex) { unsupported(plan.algorithm, "a first-of (requires_any) group"); });
    schedule.for_each_completed_dependent(op, [&](OpIndex dependent) {
      command.dependents.push_back(dependent - first);
      if (kind == OpKind::Recv && schedule.kind(dependent) == OpKind::Calc)
        note_receive_of_calc(plan.algorithm, receive_of_calc, dependent - first, op - first);
    });
  }
  finish_plan(plan, receive_of_calc);
  return plan;
}

}  // namespace choreo::persist::detail
