#pragma once
// Private to the GOAL reader (goal_read.cpp): the `// @choreo key=value` annotations, which
// carry what GOAL cannot say (goal_annotations.cpp).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "choreo/core/schedule.hpp"
#include "goal_lexer.hpp"

namespace choreo::detail::goal {

// `// @choreo` keys gathered from the line(s) before one op.
struct PendingAnnotation {
  Line line = 0;  // of the first annotation line; 0 when nothing is pending
  std::optional<OpKind> kind;
  std::optional<std::int64_t> bytes;
  std::optional<int> slot;
  std::optional<int> buffer;
  std::optional<std::int64_t> offset;
  std::optional<int> source_buffer;
  std::optional<std::int64_t> source_offset;
  // A first-of group, as labels resolved when the block ends (members may come later).
  std::optional<std::vector<std::string_view>> any_labels;
  std::optional<std::string_view> goal_requires;  // the `requires` standing in for the group
};

struct KeyValue {
  std::string_view key;
  std::string_view value;
};

/// An annotation's key=value items, in order.
std::vector<KeyValue> split_annotation(const Token& token);

// Adds one annotation line's op keys to `pending`.
void add_op_keys(PendingAnnotation& pending, const Token& token);

/// Gives `op` what `pending` says of it (nothing when nothing is pending).
void apply_annotation(const PendingAnnotation& pending, Op& op);

}  // namespace choreo::detail::goal
