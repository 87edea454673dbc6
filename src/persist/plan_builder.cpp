#include "plan_builder.hpp"

#include <fmt/format.h>

#include <limits>
#include <utility>

#include "choreo/core/error.hpp"

namespace choreo::persist::detail {

PlanBuilder::PlanBuilder(std::string algorithm, std::int64_t unit_bytes, Placer place)
    : unit_bytes_(unit_bytes), place_(std::move(place)) {
  plan_.algorithm = std::move(algorithm);
}

std::uint32_t PlanBuilder::add(Command command) {
  if (plan_.commands.size() >= std::numeric_limits<std::uint32_t>::max())
    throw Error(fmt::format("{}: a rank's program of more than 2^32 commands does not fit a plan",
                            plan_.algorithm));
  plan_.commands.push_back(std::move(command));
  receive_of_calc_.push_back(-1);
  return static_cast<std::uint32_t>(plan_.commands.size() - 1);
}

std::uint32_t PlanBuilder::message(CommandKind kind, int peer, std::int64_t amount, int tag) {
  Command command;
  command.kind = kind;
  command.peer = peer;
  command.tag = tag;
  command.bytes = amount * unit_bytes_;
  command.data = place_(MessageOp{kind, peer, tag, amount});
  return add(std::move(command));
}

std::uint32_t PlanBuilder::send(int peer, std::int64_t amount, int tag) {
  return message(CommandKind::Send, peer, amount, tag);
}

std::uint32_t PlanBuilder::recv(int peer, std::int64_t amount, int tag) {
  return message(CommandKind::Recv, peer, amount, tag);
}

std::uint32_t PlanBuilder::calc(std::int64_t /*nanoseconds: a plan reduces, it does not wait*/) {
  Command reduction;
  reduction.kind = CommandKind::Reduce;
  return add(std::move(reduction));
}

std::uint32_t PlanBuilder::copy(Place from, Place to, std::int64_t bytes) {
  Command copy;
  copy.kind = CommandKind::Copy;
  copy.bytes = bytes;
  copy.source = from;
  copy.data = to;
  return add(std::move(copy));
}

void PlanBuilder::requires_completed(std::uint32_t op, std::uint32_t dependency) {
  const std::size_t count = plan_.commands.size();
  if (op >= count || dependency >= count || op == dependency)
    throw Error(
        fmt::format("internal error: {}: dependency {} -> {} names a command this rank does "
                    "not have (it has {}); please report it",
                    plan_.algorithm, op, dependency, count));
  Command& waiting = plan_.commands[op];
  Command& released = plan_.commands[dependency];
  ++waiting.dependencies;
  released.dependents.push_back(op);
  if (waiting.kind == CommandKind::Reduce && released.kind == CommandKind::Recv)
    note_receive_of_calc(plan_.algorithm, receive_of_calc_, op, dependency);
}

Plan PlanBuilder::finish() && {
  finish_plan(plan_, receive_of_calc_);
  return std::move(plan_);
}

}  // namespace choreo::persist::detail
