// GOAL reader: one op line (send, recv, calc with its options, its label and the annotation
// before it), for the parser of goal_read.cpp.
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "choreo/core/limits.hpp"
#include "goal_parser.hpp"

namespace choreo::detail::goal {

void GoalParser::parse_op(Block& block, const Token& keyword, const std::optional<Token>& label) {
  Op op;
  if (same(keyword.text, "send")) {
    parse_message(op, OpKind::Send);
  } else if (same(keyword.text, "recv")) {
    parse_message(op, OpKind::Recv);
  } else {
    parse_calc(op);
  }
  apply_annotation(block.pending, op);
  if (block.pending.goal_requires && !block.pending.any_labels) {
    fail_at(block.pending.line,
            "'goal_requires=' names the `requires` that stands in for a 'requires_any=' "
            "group; give the group too, or drop it");
  }
  if (block.pending.any_labels) {
    block.any_groups.push_back({block.out.ops.size(), std::move(*block.pending.any_labels),
                                block.pending.goal_requires, block.pending.line});
  }
  block.pending = PendingAnnotation{};
  add_op(block, std::move(op), label);
}

void GoalParser::parse_message(Op& op, OpKind kind) {
  const bool send = kind == OpKind::Send;
  const std::string_view name = send ? "send" : "recv";
  op.kind = kind;
  op.bytes = take_size(name);
  const std::string_view direction = send ? "to" : "from";
  if (!at_word(direction)) {
    fail_expected(cat({"'", direction, "' after the size in a ", name}));
  }
  advance();
  op.peer = send ? take_number<int>("the destination rank of a send", 0)
                 : take_number<int>("the source rank of a recv (or -1 for any)", kAny);
  parse_options(op, name);
}

void GoalParser::parse_calc(Op& op) {
  op.kind = OpKind::Calc;
  op.nanoseconds = take_number<std::int64_t>("a time in ns after 'calc'", 0);
  if (op.nanoseconds > limits::kMaxNanoseconds) {
    fail_at(token_.line, "a time of " + number_text(op.nanoseconds) +
                             " ns is more than choreo takes (10^15 ns; docs/formats.md, Limits)");
  }
  parse_options(op, "calc");
}

// The optional `tag T`, `cpu C`, `nic N` after an op, each at most once, in any order.
void GoalParser::parse_options(Op& op, std::string_view name) {
  const bool message = !same(name, "calc");
  bool tag_seen = false;
  bool cpu_seen = false;
  bool nic_seen = false;
  while (token_.kind == TokenKind::Word) {
    const std::string_view key = token_.text;
    bool* seen = same(key, "cpu")              ? &cpu_seen
                 : message && same(key, "tag") ? &tag_seen
                 : message && same(key, "nic") ? &nic_seen
                                               : nullptr;
    if (seen == nullptr) break;
    if (*seen) fail_at(token_.line, cat({"'", key, "' is given twice in one ", name}));
    *seen = true;
    advance();
    if (same(key, "tag")) {
      op.tag = same(name, "recv") ? take_number<int>("a tag (or -1 for any) after 'tag'", kAny)
                                  : take_number<int>("a tag after 'tag'", 0);
    } else if (same(key, "cpu")) {
      op.cpu = take_number<int>("a cpu number after 'cpu'", 0);
    } else {
      op.nic = take_number<int>("a nic number after 'nic'", 0);
    }
  }
  expect_end_of_line(same(name, "send")   ? "'tag', 'cpu', 'nic' or the end of the line in a send"
                     : same(name, "recv") ? "'tag', 'cpu', 'nic' or the end of the line in a recv"
                                          : "'cpu' or the end of the line in a calc");
}

// A GOAL size is digits with a 'b' suffix: "64b".
std::int64_t GoalParser::take_size(std::string_view op) {
  const auto what = [op] { return cat({"a size in bytes such as '64b' after '", op, "'"}); };
  if (token_.kind != TokenKind::Word) fail_expected(what());
  const std::string_view text = token_.text;
  if (all_digits(text)) {
    fail_at(token_.line,
            cat({"expected ", what(), ", found ", quoted(text), "; GOAL sizes end in 'b'"}));
  }
  if (text.size() < 2 || text.back() != 'b') fail_expected(what());
  std::int64_t bytes = 0;
  const NumberStatus status = parse_integer(text.substr(0, text.size() - 1), bytes);
  if (status == NumberStatus::OutOfRange) {
    fail_at(token_.line, "the size " + quoted(text) + " is out of range");
  }
  if (status != NumberStatus::Ok) fail_expected(what());
  if (bytes < 0) fail_at(token_.line, "a size must not be negative, found " + quoted(text));
  if (bytes > limits::kMaxBytes) {
    fail_at(token_.line, "the size " + quoted(text) +
                             " is more than choreo takes (2^50 bytes; docs/formats.md, Limits)");
  }
  advance();
  return bytes;
}

void GoalParser::add_op(Block& block, Op op, const std::optional<Token>& label) {
  const std::size_t index = block.out.ops.size();
  std::optional<std::int64_t> id;
  if (label) {
    const auto [entry, inserted] =
        block.labels.insert({label->text, static_cast<std::uint32_t>(index), label->line});
    if (!inserted) {
      fail_at(label->line, "label " + quoted(label->text) + " is defined twice in rank " +
                               rank_text(block) + "'s block (first on line " +
                               number_text(entry->line) + ")");
    }
    id = id_of_label(label->text);
  }
  if (id) {
    op.id = *id;
    block.out.label_ids.push_back(*id);
  } else {
    block.out.needs_fresh_id.push_back(index);
  }
  // Within a block, ops are counted by 32-bit positions; over the file, by choreo's limit.
  if (++op_count_ > limits::kMaxOps) {
    fail_at(token_.line, "more than " + number_text(limits::kMaxOps) +
                             " ops, more than choreo takes (docs/formats.md, Limits)");
  }
  block.out.ops.push_back(std::move(op));
}

}  // namespace choreo::detail::goal
