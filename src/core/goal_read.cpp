// GOAL reader (the text schedule language of LogGOPSim; docs/formats.md): the file's
// statements, rank blocks and dependencies; the op lines are goal_op_line.cpp's.
//
// The reader is a hand-written single-pass scanner over a string_view (linear in the input;
// no regex) so that multi-million-line files load quickly. It is lenient where GOAL allows
// variation (comments anywhere, CRLF, unlabeled ops, any order of rank blocks) and strict
// where a mistake would silently change the schedule; every error names its line.
#include "goal_read.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "choreo/core/goal_io.hpp"
#include "choreo/core/limits.hpp"
#include "goal_parser.hpp"
#include "text.hpp"

namespace choreo::detail::goal {
namespace {

/// Builds the Schedule: ids for unlabelled ops, dependencies as id lists.
class GoalScheduleSink final : public detail::GoalSink {
 public:
  void num_ranks(int ranks) override {
    schedule_.ranks = ranks;
    schedule_.programs.resize(static_cast<std::size_t>(ranks));
  }
  void algorithm(std::string name) override { schedule_.algorithm = std::move(name); }
  void block(detail::GoalBlock& block) override {
    using Kind = detail::GoalDependency::Kind;
    detail::assign_fresh_ids(block);
    auto& ops = block.ops;
    for (const detail::GoalDependency& d : block.dependencies) {
      Op& op = ops[d.dependent];
      auto& list = d.kind == Kind::Completed ? op.requires_completed
                   : d.kind == Kind::Started ? op.requires_started
                                             : op.requires_any;
      list.push_back(ops[d.target].id);
    }
    schedule_.programs[static_cast<std::size_t>(block.rank)].ops = std::move(ops);
  }
  Schedule take() { return std::move(schedule_); }

 private:
  Schedule schedule_;
};

}  // namespace

void GoalParser::parse() {
  advance();
  while (token_.kind != TokenKind::EndOfFile) parse_top_level_statement();
  if (!num_ranks_seen_) {
    fail_at(token_.line, "missing 'num_ranks N'; a GOAL file starts with 'num_ranks N'");
  }
}

[[noreturn]] void GoalParser::fail_expected(std::string_view what) const {
  fail_at(token_.line, cat({"expected ", what, ", found ", describe(token_)}));
}

void GoalParser::expect_end_of_line(std::string_view what) {
  if (token_.kind == TokenKind::EndOfLine) {
    advance();
  } else if (token_.kind == TokenKind::Annotation) {
    fail_at(token_.line,
            "a '// @choreo' annotation must be on a line of its own, before the "
            "op it annotates");
  } else if (token_.kind != TokenKind::EndOfFile) {
    fail_expected(what);
  }
}

// ---- outside rank blocks

void GoalParser::parse_top_level_statement() {
  switch (token_.kind) {
    case TokenKind::EndOfLine:
      advance();
      return;
    case TokenKind::Annotation:
      parse_header_annotation();
      return;
    case TokenKind::CloseBrace:
      fail_at(token_.line, "'}' without an open 'rank R {' block");
    case TokenKind::Word:
      if (at_word("num_ranks")) return parse_num_ranks();
      if (at_word("rank")) return parse_rank_block();
      if (is_op_keyword(token_.text)) {
        fail_at(token_.line,
                quoted(token_.text) + " outside a rank block; put ops inside 'rank R { ... }'");
      }
      break;
    default:
      break;
  }
  fail_expected("'num_ranks N' or 'rank R {'");
}

void GoalParser::parse_header_annotation() {
  for (const KeyValue& pair : split_annotation(token_)) {
    if (pair.key != "algorithm") {
      fail_at(token_.line, "'@choreo " + std::string(pair.key) +
                               "=' outside a rank block; op annotations go on the line "
                               "before the op inside 'rank R { ... }'");
    }
    if (algorithm_seen_) fail_at(token_.line, "'algorithm=' is given twice");
    std::optional<std::string> name = percent_decode(pair.value);
    if (!name) {
      fail_at(token_.line,
              "bad %-escape in 'algorithm=" + std::string(pair.value) + "'; write '%' as %25");
    }
    if (!is_utf8(*name)) {
      fail_at(token_.line, quoted("algorithm=" + std::string(pair.value)) +
                               " decodes to bytes that are not UTF-8 text; JSON (and so "
                               "choreo) holds only UTF-8 names");
    }
    sink_.algorithm(std::move(*name));
    algorithm_seen_ = true;
  }
  advance();
}

void GoalParser::parse_num_ranks() {
  const Line line = token_.line;
  if (num_ranks_seen_) {
    fail_at(line,
            "'num_ranks' is given twice (first on line " + number_text(num_ranks_line_) + ")");
  }
  advance();
  const int ranks = take_number<int>("the number of ranks after 'num_ranks'", 0);
  if (ranks > limits::kMaxRanks) {
    fail_at(line, "num_ranks " + number_text(ranks) + " is more than choreo takes (" +
                      number_text(limits::kMaxRanks) + " = 2^24; docs/formats.md, Limits)");
  }
  expect_end_of_line("the end of the line after 'num_ranks N'");
  num_ranks_seen_ = true;
  num_ranks_line_ = line;
  ranks_ = ranks;
  seen_ranks_.assign(static_cast<std::size_t>(ranks), 0);
  sink_.num_ranks(ranks);
}

void GoalParser::parse_rank_block() {
  Block& block = block_;
  const Line open_line = token_.line;
  if (!num_ranks_seen_) {
    fail_at(open_line, "missing 'num_ranks N' before the first rank block");
  }
  advance();
  const int rank = take_number<int>("a rank number after 'rank'", 0);
  check_new_rank(rank, open_line);
  block.reset(rank, open_line);
  if (token_.kind != TokenKind::OpenBrace)
    fail_expected("'{' after 'rank " + rank_text(block) + "'");
  advance();
  expect_end_of_line("the end of the line after 'rank " + rank_text(block) + " {'");
  while (token_.kind != TokenKind::CloseBrace) {
    if (token_.kind == TokenKind::EndOfFile) {
      fail_at(block.open_line,
              "rank " + rank_text(block) + "'s block is never closed; add '}' after its last line");
    }
    parse_block_statement(block);
  }
  if (block.pending.line != 0) {
    fail_at(block.pending.line, "this '@choreo' annotation is followed by '}', not by an op");
  }
  const std::size_t block_end = lexer_.position();
  advance();
  expect_end_of_line("the end of the line after '}'");
  finish_block(block);
  if (consumed_) consumed_(block_end);
}

void GoalParser::check_new_rank(int rank, Line line) {
  if (rank >= ranks_) {
    fail_at(line, "rank " + number_text(rank) + " is out of range: num_ranks is " +
                      number_text(ranks_) + " (line " + number_text(num_ranks_line_) +
                      "), so ranks are 0 to " + number_text(ranks_ - 1));
  }
  if (seen_ranks_[static_cast<std::size_t>(rank)]) {
    // Only on failure: find where the rank's first block was.
    fail_at(line, "rank " + number_text(rank) + "'s block appears twice (first on line " +
                      number_text(first_block_line(rank)) + ")");
  }
  seen_ranks_[static_cast<std::size_t>(rank)] = 1;
}

/// The line of rank's block, found again by a second lexer (errors only: a map kept for
/// this cost a node per rank).
Line GoalParser::first_block_line(int rank) const {
  Lexer again(lexer_.text());
  Token previous;
  for (Token t = again.next(); t.kind != TokenKind::EndOfFile; t = again.next()) {
    if (previous.kind == TokenKind::Word && previous.text == "rank" && t.kind == TokenKind::Word &&
        t.text == number_text(rank))
      return previous.line;
    previous = t;
  }
  return 0;
}

// ---- inside a rank block

void GoalParser::parse_block_statement(Block& block) {
  switch (token_.kind) {
    case TokenKind::EndOfLine:
      advance();
      return;
    case TokenKind::Annotation:
      add_op_keys(block.pending, token_);
      advance();
      return;
    case TokenKind::Word:
      return parse_item(block);
    default:
      fail_expected(
          "an op ('send', 'recv', 'calc'), a label 'name:', a dependency "
          "'a requires b', or '}'");
  }
}

void GoalParser::parse_item(Block& block) {
  const Token first = token_;
  advance();
  if (token_.kind == TokenKind::Colon) {
    if (!is_identifier(first.text)) {
      fail_at(first.line, "the label " + quoted(first.text) +
                              " is not a GOAL identifier (a letter, then letters, digits, '_')");
    }
    advance();
    if (token_.kind != TokenKind::Word || !is_op_keyword(token_.text)) {
      fail_expected("'send', 'recv' or 'calc' after the label '" + std::string(first.text) + ":'");
    }
    const Token keyword = token_;
    advance();
    return parse_op(block, keyword, first);
  }
  if (is_op_keyword(first.text)) return parse_op(block, first, std::nullopt);
  if (same(first.text, "rank") || same(first.text, "num_ranks")) {
    fail_at(first.line, quoted(first.text) + " inside rank " + rank_text(block) +
                            "'s block (opened on line " + number_text(block.open_line) +
                            "); close it with '}' first");
  }
  if (!at_word("requires") && !at_word("irequires")) {
    fail_at(first.line,
            "expected an op ('send', 'recv', 'calc'), a label 'name:' or a "
            "dependency 'a requires b', found " +
                quoted(first.text));
  }
  parse_dependency(block, first);
}

void GoalParser::parse_dependency(Block& block, const Token& dependent) {
  const bool started = at_word("irequires");
  const std::string_view relation = token_.text;
  advance();
  if (token_.kind != TokenKind::Word) fail_expected(cat({"a label after '", relation, "'"}));
  const Token target = token_;
  advance();
  expect_end_of_line("the end of the line after the dependency");
  if (block.pending.line != 0) {
    fail_at(block.pending.line,
            "this '@choreo' annotation is followed by a dependency, not by an op");
  }
  const std::uint32_t dependent_index = defined_label(block, dependent);
  block.out.dependencies.push_back(
      {dependent_index, defined_label(block, target),
       started ? detail::GoalDependency::Kind::Started : detail::GoalDependency::Kind::Completed});
}

std::uint32_t GoalParser::defined_label(const Block& block, const Token& label) const {
  const LabelTable::Entry* entry = block.labels.find(label.text);
  if (entry == nullptr) {
    fail_at(label.line, "dependency names label " + quoted(label.text) +
                            ", which is not defined earlier in rank " + rank_text(block) +
                            "'s block");
  }
  return entry->op_index;
}

// First-of groups become dependencies, then the sink takes the block.
void GoalParser::finish_block(Block& block) {
  for (const Block::AnyGroup& group : block.any_groups) resolve_any_group(block, group);
  sink_.block(block.out);
}

// Turns a group's labels into dependencies and drops the `requires` the writer put in its
// place, so that choreo's GOAL round trip gives back the group and nothing else.
void GoalParser::resolve_any_group(Block& block, const Block::AnyGroup& group) const {
  using Kind = detail::GoalDependency::Kind;
  auto& dependencies = block.out.dependencies;
  const auto dependent = static_cast<std::uint32_t>(group.dependent);
  const auto index_of = [&](std::string_view label) {
    const LabelTable::Entry* entry = block.labels.find(label);
    if (entry == nullptr) {
      fail_at(group.line, "'requires_any=' names label " + quoted(label) + ", which rank " +
                              rank_text(block) + "'s block does not define");
    }
    return entry->op_index;
  };
  for (const std::string_view label : group.labels)
    dependencies.push_back({dependent, index_of(label), Kind::Any});
  if (!group.goal_requires) return;
  const std::uint32_t stand_in = index_of(*group.goal_requires);
  // Labels name ops one to one, so member and stand-in compare by position.
  if (std::none_of(group.labels.begin(), group.labels.end(),
                   [&](std::string_view label) { return index_of(label) == stand_in; })) {
    fail_at(group.line, "'goal_requires=" + std::string(*group.goal_requires) +
                            "' must name a member of the 'requires_any=' group");
  }
  const auto it = std::find_if(dependencies.rbegin(), dependencies.rend(), [&](const auto& d) {
    return d.dependent == dependent && d.target == stand_in && d.kind == Kind::Completed;
  });
  if (it == dependencies.rend()) {
    fail_at(group.line, "'goal_requires=" + std::string(*group.goal_requires) +
                            "' but the op has no 'requires " + std::string(*group.goal_requires) +
                            "' line; add it (it is what LogGOPSim sees of the group)");
  }
  dependencies.erase(std::next(it).base());
}

}  // namespace choreo::detail::goal

namespace choreo {

namespace detail {

void read_goal(std::string_view text, GoalSink& sink,
               const std::function<void(std::size_t)>& consumed) {
  goal::GoalParser(text, sink, consumed).parse();
}

void assign_fresh_ids(GoalBlock& block) {
  std::vector<std::int64_t>& taken = block.label_ids;
  std::sort(taken.begin(), taken.end());
  std::size_t next_taken = 0;
  std::int64_t candidate = 0;
  for (const std::size_t index : block.needs_fresh_id) {
    while (next_taken < taken.size() && taken[next_taken] <= candidate) {
      if (taken[next_taken] == candidate) ++candidate;
      ++next_taken;
    }
    block.ops[index].id = candidate++;
  }
}

}  // namespace detail

Schedule schedule_from_goal(const std::string& text) {
  detail::goal::GoalScheduleSink sink;
  detail::read_goal(text, sink);
  return sink.take();
}

}  // namespace choreo
