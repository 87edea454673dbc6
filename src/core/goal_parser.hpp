#pragma once
// Private to the GOAL reader: the parser of a GOAL file, its statements (goal_read.cpp) and its
// op lines (goal_op_line.cpp), with what a rank block collects as it is read.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "choreo/core/schedule.hpp"
#include "goal_annotations.hpp"
#include "goal_lexer.hpp"
#include "goal_read.hpp"
#include "goal_syntax.hpp"

namespace choreo::detail::goal {

/// A block's labels: an open-addressing table of views into the text, cleared (not freed)
/// between blocks, so that a label costs no heap allocation (a node-based map made one per
/// op, most of the reader's time on million-op files).
class LabelTable {
 public:
  struct Entry {
    std::string_view label;
    std::uint32_t op_index = 0;
    Line line = 0;
  };

  void clear() {
    for (const std::uint32_t slot : used_) slots_[slot].label = {};
    used_.clear();
  }

  /// The entry of `label`, or nullptr.
  const Entry* find(std::string_view label) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = hash(label) & mask();; i = (i + 1) & mask()) {
      const Entry& e = slots_[i];
      if (e.label.empty()) return nullptr;
      if (same(e.label, label)) return &e;
    }
  }

  /// Inserts `entry` unless its label is there; returns the entry now holding the label and
  /// whether it was inserted.
  std::pair<const Entry*, bool> insert(const Entry& entry) {
    if ((used_.size() + 1) * 2 > slots_.size()) grow();
    for (std::size_t i = hash(entry.label) & mask();; i = (i + 1) & mask()) {
      Entry& e = slots_[i];
      if (e.label.empty()) {
        e = entry;
        used_.push_back(static_cast<std::uint32_t>(i));
        return {&e, true};
      }
      if (same(e.label, entry.label)) return {&e, false};
    }
  }

 private:
  std::size_t mask() const { return slots_.size() - 1; }
  static std::size_t hash(std::string_view text) {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a: labels are short
    for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
  void grow() {
    std::vector<Entry> old;
    old.reserve(used_.size());
    for (const std::uint32_t slot : used_) old.push_back(slots_[slot]);
    slots_.assign(std::max<std::size_t>(64, slots_.size() * 2), Entry{});
    used_.clear();
    for (const Entry& e : old) insert(e);
  }

  std::vector<Entry> slots_;
  std::vector<std::uint32_t> used_;  ///< occupied slots, so clear() costs what was used
};

// What one `rank R { ... }` block collects as it is read; reused from block to block.
struct Block {
  detail::GoalBlock out;
  Line open_line = 0;
  LabelTable labels;
  struct AnyGroup {
    std::size_t dependent;
    std::vector<std::string_view> labels;
    std::optional<std::string_view> goal_requires;
    Line line;  // of the annotation
  };
  std::vector<AnyGroup> any_groups;
  PendingAnnotation pending;

  void reset(int rank, Line line) {
    out.rank = rank;
    out.ops.clear();
    out.needs_fresh_id.clear();
    out.label_ids.clear();
    out.dependencies.clear();
    open_line = line;
    labels.clear();
    any_groups.clear();
    pending = PendingAnnotation{};
  }
};

inline bool is_op_keyword(std::string_view word) {
  return same(word, "send") || same(word, "recv") || same(word, "calc");
}

/// Reads GOAL text into a sink, block by block (detail::read_goal).
class GoalParser {
 public:
  GoalParser(std::string_view text, detail::GoalSink& sink,
             const std::function<void(std::size_t)>& consumed)
      : lexer_(text), sink_(sink), consumed_(consumed) {}

  void parse();

 private:
  void advance() { token_ = lexer_.next(); }

  bool at_word(std::string_view word) const {
    return token_.kind == TokenKind::Word && same(token_.text, word);
  }

  [[noreturn]] void fail_expected(std::string_view what) const;
  void expect_end_of_line(std::string_view what);

  // Reads the current word as an integer >= min and moves past it.
  template <class Int>
  Int take_number(std::string_view what, Int min) {
    if (token_.kind != TokenKind::Word) fail_expected(what);
    Int value{};
    const NumberStatus status = parse_integer(token_.text, value);
    if (status == NumberStatus::OutOfRange) {
      fail_at(token_.line, cat({what, " is out of range: ", quoted(token_.text)}));
    }
    if (status != NumberStatus::Ok) fail_expected(what);
    if (value < min) {
      fail_at(token_.line,
              cat({what, " must be at least ", number_text(min), ", found ", quoted(token_.text)}));
    }
    advance();
    return value;
  }

  static std::string rank_text(const Block& block) { return number_text(block.out.rank); }

  // ---- outside rank blocks (goal_read.cpp)

  void parse_top_level_statement();
  void parse_header_annotation();
  void parse_num_ranks();
  void parse_rank_block();
  void check_new_rank(int rank, Line line);
  Line first_block_line(int rank) const;

  // ---- inside a rank block (goal_read.cpp)

  void parse_block_statement(Block& block);
  void parse_item(Block& block);
  void parse_dependency(Block& block, const Token& dependent);
  std::uint32_t defined_label(const Block& block, const Token& label) const;
  void finish_block(Block& block);
  void resolve_any_group(Block& block, const Block::AnyGroup& group) const;

  // ---- op lines (goal_op_line.cpp)

  void parse_op(Block& block, const Token& keyword, const std::optional<Token>& label);
  void parse_message(Op& op, OpKind kind);
  void parse_calc(Op& op);
  void parse_options(Op& op, std::string_view name);
  std::int64_t take_size(std::string_view op);
  void add_op(Block& block, Op op, const std::optional<Token>& label);

  Lexer lexer_;
  Token token_;
  detail::GoalSink& sink_;
  const std::function<void(std::size_t)>& consumed_;
  Block block_;
  int ranks_ = 0;
  std::vector<char> seen_ranks_;  // per rank: its block was read
  bool num_ranks_seen_ = false;
  Line num_ranks_line_ = 0;
  bool algorithm_seen_ = false;
  std::int64_t op_count_ = 0;
};

}  // namespace choreo::detail::goal
