// The `// @choreo key=value` annotations of a GOAL file (goal_annotations.hpp), read.
#include "goal_annotations.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace choreo::detail::goal {
namespace {

template <class Int>
void set_annotation_number(std::optional<Int>& field, const KeyValue& pair, Line line) {
  if (field) fail_at(line, "'" + std::string(pair.key) + "=' is given twice for the same op");
  Int value{};
  const NumberStatus status = parse_integer(pair.value, value);
  if (status == NumberStatus::OutOfRange) {
    fail_at(line,
            "the value of '" + std::string(pair.key) + "=' is out of range: " + quoted(pair.value));
  }
  if (status != NumberStatus::Ok) {
    fail_at(line, "the value of '" + std::string(pair.key) + "=' must be an integer, found " +
                      quoted(pair.value));
  }
  field = value;
}

constexpr std::string_view kKnownKeys =
    "algorithm, op, bytes, slot, buf, offset, src_buf, src_offset, requires_any, goal_requires";

// A GOAL label as an annotation value: checked here, resolved when the block ends.
std::string_view annotation_label(std::string_view label, std::string_view key, Line line) {
  if (!is_identifier(label)) {
    fail_at(line, "'" + std::string(key) + "=' takes op labels such as l5, found " + quoted(label));
  }
  return label;
}

void set_any_labels(PendingAnnotation& pending, const KeyValue& pair, Line line) {
  if (pending.any_labels) fail_at(line, "'requires_any=' is given twice for the same op");
  std::vector<std::string_view> labels;
  std::string_view rest = pair.value;
  while (true) {
    const std::size_t comma = rest.find(',');
    labels.push_back(annotation_label(rest.substr(0, comma), pair.key, line));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  pending.any_labels = std::move(labels);
}

}  // namespace

std::vector<KeyValue> split_annotation(const Token& token) {
  std::vector<KeyValue> pairs;
  std::string_view rest = token.text;
  while (true) {
    while (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);
    if (rest.empty()) return pairs;
    std::size_t end = 0;
    while (end < rest.size() && !is_blank(rest[end])) ++end;
    const std::string_view item = rest.substr(0, end);
    rest.remove_prefix(end);
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      fail_at(token.line, "expected key=value in the '@choreo' annotation, found " + quoted(item));
    }
    pairs.push_back({item.substr(0, equals), item.substr(equals + 1)});
  }
}

// Adds one annotation line's op keys to `pending`.
void add_op_keys(PendingAnnotation& pending, const Token& token) {
  const std::vector<KeyValue> pairs = split_annotation(token);
  if (pairs.empty()) return;  // a bare "// @choreo" says nothing
  if (pending.line == 0) pending.line = token.line;
  for (const KeyValue& pair : pairs) {
    if (pair.key == "op") {
      if (pending.kind) fail_at(token.line, "'op=' is given twice for the same op");
      if (pair.value == "delay") {
        pending.kind = OpKind::Delay;
      } else if (pair.value == "copy") {
        pending.kind = OpKind::Copy;
      } else {
        fail_at(token.line, "'op=' must be 'delay' or 'copy', found " + quoted(pair.value));
      }
    } else if (pair.key == "bytes") {
      set_annotation_number(pending.bytes, pair, token.line);
    } else if (pair.key == "slot") {
      set_annotation_number(pending.slot, pair, token.line);
    } else if (pair.key == "buf") {
      set_annotation_number(pending.buffer, pair, token.line);
    } else if (pair.key == "offset") {
      set_annotation_number(pending.offset, pair, token.line);
    } else if (pair.key == "src_buf") {
      set_annotation_number(pending.source_buffer, pair, token.line);
    } else if (pair.key == "src_offset") {
      set_annotation_number(pending.source_offset, pair, token.line);
    } else if (pair.key == "requires_any") {
      set_any_labels(pending, pair, token.line);
    } else if (pair.key == "goal_requires") {
      if (pending.goal_requires) {
        fail_at(token.line, "'goal_requires=' is given twice for the same op");
      }
      pending.goal_requires = annotation_label(pair.value, pair.key, token.line);
    } else if (pair.key == "algorithm") {
      fail_at(token.line, "'@choreo algorithm=' belongs outside rank blocks, before 'num_ranks'");
    } else {
      fail_at(token.line, "unknown '@choreo' key " + quoted(pair.key) +
                              " (known keys: " + std::string(kKnownKeys) + ")");
    }
  }
}

void apply_annotation(const PendingAnnotation& pending, Op& op) {
  if (pending.line == 0) return;
  if (pending.kind) {
    if (op.kind != OpKind::Calc) {
      fail_at(pending.line, "'@choreo op=" + std::string(to_string(*pending.kind)) +
                                "' must annotate a 'calc' line, but the next op is a '" +
                                std::string(to_string(op.kind)) + "'");
    }
    op.kind = *pending.kind;
    if (op.kind == OpKind::Copy) op.nanoseconds = 0;  // a copy's calc time is a placeholder
  }
  if (pending.bytes) {
    if (op.kind != OpKind::Copy) {
      fail_at(pending.line,
              "'bytes=' belongs to 'op=copy'; a send or recv gives its size as "
              "'<n>b' on its own line");
    }
    op.bytes = *pending.bytes;
  }
  op.slot = pending.slot.value_or(kNoSlot);
  op.region = {pending.buffer.value_or(kAutoBuffer), pending.offset.value_or(0)};
  op.source = {pending.source_buffer.value_or(kAutoBuffer), pending.source_offset.value_or(0)};
}

}  // namespace choreo::detail::goal
