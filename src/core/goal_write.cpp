// GOAL writer (the text schedule language of LogGOPSim; docs/formats.md).
//
// The writer emits plain GOAL that LogGOPSim's txt2bin accepts: every op gets a label
// (l<id>), dependencies go at the end of the rank block, and whatever GOAL cannot say
// (delay, copy, slots, buffer regions, the algorithm name) travels in `// @choreo key=value`
// comment lines of their own, since txt2bin does not accept a comment after an op. A
// first-of group (Op::requires_any), which GOAL cannot say at all, becomes a `requires` on
// its first member for LogGOPSim plus an annotation that lets choreo restore the group.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/core/goal_io.hpp"
#include "goal_syntax.hpp"
#include "text.hpp"

namespace choreo::detail::goal {
namespace {

[[noreturn]] void fail_unwritable(int rank, const Op& op, const std::string& why) {
  throw Error("cannot write GOAL: rank " + number_text(rank) + ", op " + number_text(op.id) + " (" +
              std::string(to_string(op.kind)) + "): " + why);
}

void require_at_least(int rank, const Op& op, std::int64_t value, std::int64_t min,
                      std::string_view field) {
  if (value < min) {
    fail_unwritable(rank, op,
                    std::string(field) + " is " + number_text(value) +
                        " but GOAL needs it >= " + number_text(min));
  }
}

// The writer only emits what its own reader (and LogGOPSim) reads back unchanged.
void check_writable(int rank, const Op& op) {
  require_at_least(rank, op, op.cpu, 0, "cpu");
  switch (op.kind) {
    case OpKind::Send:
      require_at_least(rank, op, op.peer, 0, "the destination rank");
      require_at_least(rank, op, op.tag, 0, "the tag");
      require_at_least(rank, op, op.bytes, 0, "the size");
      require_at_least(rank, op, op.nic, 0, "nic");
      break;
    case OpKind::Recv:
      require_at_least(rank, op, op.peer, kAny, "the source rank");
      require_at_least(rank, op, op.tag, kAny, "the tag");
      require_at_least(rank, op, op.bytes, 0, "the size");
      require_at_least(rank, op, op.nic, 0, "nic");
      break;
    case OpKind::Delay:
    case OpKind::Calc:
      require_at_least(rank, op, op.nanoseconds, 0, "the time in ns");
      break;
    case OpKind::Copy:
      break;
  }
}

// Labels are per rank block, so ids must be unique there and dependencies must stay inside.
void check_ids(int rank, const Program& program) {
  std::unordered_set<std::int64_t> ids;
  ids.reserve(program.ops.size());
  for (const Op& op : program.ops) {
    if (!ids.insert(op.id).second) {
      fail_unwritable(rank, op,
                      "another op of the rank has the same id; ids label GOAL ops "
                      "and must be unique within a rank");
    }
  }
  for (const Op& op : program.ops) {
    for (const auto* list : {&op.requires_completed, &op.requires_started, &op.requires_any}) {
      for (const std::int64_t dependency : *list) {
        if (ids.count(dependency) == 0) {
          fail_unwritable(rank, op,
                          "it depends on op " + number_text(dependency) +
                              ", which is not in rank " + number_text(rank) + "'s program");
        }
      }
    }
  }
}

void append_key(std::string& keys, std::string_view key, std::int64_t value) {
  keys += ' ';
  keys += key;
  keys += '=';
  append_number(keys, value);
}

// The member of op's first-of group that GOAL's `requires` keeps in the group's place: the
// first, which by the IR's convention is the one the op waits for when nothing is delayed,
// so LogGOPSim times the schedule as if no redundant copy ever won (an upper bound on
// choreo's time). Requiring every member instead would wait for the slowest copy. None
// when a member is already required: the group is then met whenever the op may start, and
// GOAL's `requires` say exactly the same.
std::optional<std::int64_t> goal_stand_in(const Op& op) {
  if (op.requires_any.empty()) return std::nullopt;
  for (const std::int64_t member : op.requires_any)
    if (std::find(op.requires_completed.begin(), op.requires_completed.end(), member) !=
        op.requires_completed.end())
      return std::nullopt;
  return op.requires_any.front();
}

void append_labels(std::string& out, const std::vector<std::int64_t>& ids,
                   std::string_view separator) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += separator;
    append_label(out, ids[i]);
  }
}

// Writes the `// @choreo` line for what the GOAL op line cannot carry; nothing if defaults.
// A first-of group also gets an ordinary comment saying what LogGOPSim will not see.
void write_annotation(std::string& out, const Op& op) {
  const std::optional<std::int64_t> stand_in = goal_stand_in(op);
  if (stand_in) {
    out += "// first-of: choreo starts ";
    append_label(out, op.id);
    out += " once the first of ";
    append_labels(out, op.requires_any, ", ");
    out += " completed; GOAL has no such dependency, so LogGOPSim waits for ";
    append_label(out, *stand_in);
    out += " alone\n";
  }
  std::string keys;
  if (op.kind == OpKind::Delay) keys += " op=delay";
  if (op.kind == OpKind::Copy) {
    keys += " op=copy";
    append_key(keys, "bytes", op.bytes);
  }
  if (op.slot != kNoSlot) append_key(keys, "slot", op.slot);
  if (op.region.buffer != kAutoBuffer) append_key(keys, "buf", op.region.buffer);
  if (op.region.offset != 0) append_key(keys, "offset", op.region.offset);
  if (op.source.buffer != kAutoBuffer) append_key(keys, "src_buf", op.source.buffer);
  if (op.source.offset != 0) append_key(keys, "src_offset", op.source.offset);
  if (!op.requires_any.empty()) {
    keys += " requires_any=";
    append_labels(keys, op.requires_any, ",");
  }
  if (stand_in) {
    keys += " goal_requires=";
    append_label(keys, *stand_in);
  }
  if (keys.empty()) return;
  out += "// ";
  out += kAnnotationMark;
  out += keys;
  out += '\n';
}

void append_option(std::string& out, std::string_view name, int value) {
  out += ' ';
  out += name;
  out += ' ';
  append_number(out, value);
}

void write_op_line(std::string& out, const Op& op) {
  append_label(out, op.id);
  out += ": ";
  if (op.is_message()) {
    out += op.kind == OpKind::Send ? "send " : "recv ";
    append_number(out, op.bytes);
    out += op.kind == OpKind::Send ? "b to " : "b from ";
    append_number(out, op.peer);
    append_option(out, "tag", op.tag);  // always written: no reliance on a default tag
    if (op.cpu != 0) append_option(out, "cpu", op.cpu);
    if (op.nic != 0) append_option(out, "nic", op.nic);
  } else {
    out += "calc ";
    append_number(out, op.kind == OpKind::Copy ? std::int64_t{0} : op.nanoseconds);
    if (op.cpu != 0) append_option(out, "cpu", op.cpu);
  }
  out += '\n';
}

void write_dependencies(std::string& out, const Op& op) {
  const auto write = [&](const std::vector<std::int64_t>& ids, std::string_view relation) {
    for (const std::int64_t id : ids) {
      append_label(out, op.id);
      out += relation;
      append_label(out, id);
      out += '\n';
    }
  };
  write(op.requires_completed, " requires ");
  write(op.requires_started, " irequires ");
  if (const auto stand_in = goal_stand_in(op)) write({*stand_in}, " requires ");
}

void write_rank(std::string& out, int rank, const Program& program) {
  check_ids(rank, program);
  out += "rank ";
  append_number(out, rank);
  out += " {\n";
  for (const Op& op : program.ops) {
    check_writable(rank, op);
    write_annotation(out, op);
    write_op_line(out, op);
  }
  // After all ops, every label a dependency names is already defined, as GOAL requires.
  for (const Op& op : program.ops) write_dependencies(out, op);
  out += "}\n";
}

}  // namespace
}  // namespace choreo::detail::goal

namespace choreo {

std::string schedule_to_goal(const Schedule& schedule) {
  using namespace detail::goal;
  if (schedule.ranks < 0 || schedule.programs.size() != static_cast<std::size_t>(schedule.ranks)) {
    throw Error("cannot write GOAL: the schedule says ranks = " + number_text(schedule.ranks) +
                " but has " + number_text(schedule.programs.size()) + " programs");
  }
  if (!is_utf8(schedule.algorithm)) {
    throw Error(
        "cannot write GOAL: the schedule's algorithm name is not UTF-8 text, which the reader "
        "takes back only; rename it");
  }
  check_writable(schedule, "GOAL");
  std::string out;
  if (!schedule.algorithm.empty()) {
    out += "// ";
    out += kAnnotationMark;
    out += " algorithm=";
    out += percent_encode(schedule.algorithm);
    out += '\n';
  }
  out += "num_ranks ";
  append_number(out, schedule.ranks);
  out += '\n';
  for (int rank = 0; rank < schedule.ranks; ++rank) {
    write_rank(out, rank, schedule.programs[static_cast<std::size_t>(rank)]);
  }
  return out;
}

}  // namespace choreo
