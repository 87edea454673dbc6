// GOAL reader and writer (the text schedule language of LogGOPSim; docs/formats.md).
//
// The writer emits plain GOAL that LogGOPSim's txt2bin accepts: every op gets a label
// (l<id>), dependencies go at the end of the rank block, and whatever GOAL cannot say
// (delay, copy, slots, buffer regions, the algorithm name) travels in `// @choreo key=value`
// comment lines of their own, since txt2bin does not accept a comment after an op. A
// first-of group (Op::requires_any), which GOAL cannot say at all, becomes a `requires` on
// its first member for LogGOPSim plus an annotation that lets choreo restore the group.
//
// The reader is a hand-written single-pass scanner over a string_view (linear in the input;
// no regex) so that multi-million-line files load quickly. It is lenient where GOAL allows
// variation (comments anywhere, CRLF, unlabeled ops, any order of rank blocks) and strict
// where a mistake would silently change the schedule; every error names its line.
#include "choreo/goal_io.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "choreo/error.hpp"
#include "choreo/limits.hpp"
#include "choreo/text.hpp"
#include "goal_read.hpp"

namespace choreo {
namespace {

using Line = std::int64_t;

constexpr std::string_view kAnnotationMark = "@choreo";

// A tiny file must not make the reader allocate gigabytes: num_ranks may be at most this or
// the file size in bytes, whichever is larger (a writer-made file needs > 10 bytes per rank).

// ---------------------------------------------------------------------------------------
// Character classes and numbers (ASCII only, locale independent).

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
// Words are keywords, labels, numbers ("-1") and sizes ("64b").
bool is_word_char(char c) {
  return is_letter(c) || is_digit(c) || c == '_' || c == '-' || c == '+';
}

// Equality of short words, inlined: the library's string_view == calls memcmp, a sixth of the
// reader's time on million-op files.
constexpr bool same(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

bool is_identifier(std::string_view text) {
  if (text.empty() || !is_letter(text.front())) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_letter(c) || is_digit(c) || c == '_'; });
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
}

enum class NumberStatus : std::uint8_t { Ok, Invalid, OutOfRange };

// The whole text must be the number: "12x" is invalid, not 12.
template <class Int>
NumberStatus parse_integer(std::string_view text, Int& value) {
  const char* const end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, value);
  if (result.ec == std::errc::result_out_of_range) return NumberStatus::OutOfRange;
  if (result.ec != std::errc{} || result.ptr != end) return NumberStatus::Invalid;
  return NumberStatus::Ok;
}

template <class Int>
void append_number(std::string& out, Int value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

template <class Int>
std::string number_text(Int value) {
  std::string text;
  append_number(text, value);
  return text;
}

// ---------------------------------------------------------------------------------------
// Labels: op id <-> GOAL label. GOAL labels are identifiers (no '-'), so a negative id -N
// is spelled m<N>. Only these canonical spellings carry an id back into choreo.

void append_label(std::string& out, std::int64_t id) {
  if (id >= 0) {
    out += 'l';
    append_number(out, id);
  } else {
    out += 'm';
    append_number(out, std::uint64_t{0} - static_cast<std::uint64_t>(id));
  }
}

std::optional<std::int64_t> id_of_label(std::string_view label) {
  if (label.size() < 2 || (label[0] != 'l' && label[0] != 'm')) return std::nullopt;
  const bool negative = label[0] == 'm';
  const std::string_view digits = label.substr(1);
  // Leading zeros (and "m0") are not the writer's spelling: such labels get fresh ids.
  if (!all_digits(digits) || (digits[0] == '0' && (negative || digits.size() > 1))) {
    return std::nullopt;
  }
  std::uint64_t magnitude = 0;
  if (parse_integer(digits, magnitude) != NumberStatus::Ok) return std::nullopt;
  constexpr auto kMaxId = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!negative) {
    if (magnitude > kMaxId) return std::nullopt;
    return static_cast<std::int64_t>(magnitude);
  }
  if (magnitude > kMaxId + 1) return std::nullopt;
  return static_cast<std::int64_t>(std::uint64_t{0} - magnitude);  // modular in C++20
}

// ---------------------------------------------------------------------------------------
// The algorithm name is one annotation value: bytes outside a small safe set are written
// %XX so that spaces, '=' and non-ASCII survive the round trip exactly.

bool is_plain_name_char(char c) {
  return is_letter(c) || is_digit(c) ||
         std::string_view("-_.~+:/,@()").find(c) != std::string_view::npos;
}

std::string percent_encode(std::string_view name) {
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out;
  for (const char c : name) {
    if (is_plain_name_char(c)) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = hex_value(text[i + 1]);
    const int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Writer.

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

// ---------------------------------------------------------------------------------------
// Reader: tokens.

enum class TokenKind : std::uint8_t {
  Word,        // keyword, label, number or size
  Colon,       // after a label
  OpenBrace,   // rank R {
  CloseBrace,  // }
  EndOfLine,   // '\n', or a /* */ comment that spans lines
  Annotation,  // `// @choreo ...`; text is what follows "@choreo"
  Stray,       // any other byte
  EndOfFile,
};

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  std::string_view text;
  Line line = 1;
};

// Builds an error message; only called on failure, so the hot path allocates nothing.
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string text;
  for (const std::string_view part : parts) text += part;
  return text;
}

[[noreturn]] void fail_at(Line line, const std::string& message) {
  throw Error("line " + number_text(line) + ": " + message);
}

/// `text` in quotes for a message, cut after 40 bytes; bytes that are not printable ASCII
/// appear as \xNN, so that a message is one clean line whatever the file holds.
std::string quoted(std::string_view text) {
  constexpr std::size_t kLongest = 40;
  std::string out = "'";
  for (const char c : text.substr(0, kLongest)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F) {
      out += c;
    } else {
      constexpr std::string_view kHex = "0123456789ABCDEF";
      out += {'\\', 'x', kHex[byte >> 4], kHex[byte & 15]};
    }
  }
  return out + (text.size() > kLongest ? "...'" : "'");
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::Word:
      return quoted(token.text);
    case TokenKind::Colon:
      return "':'";
    case TokenKind::OpenBrace:
      return "'{'";
    case TokenKind::CloseBrace:
      return "'}'";
    case TokenKind::EndOfLine:
      return "the end of the line";
    case TokenKind::Annotation:
      return "a '// @choreo' annotation";
    case TokenKind::EndOfFile:
      return "the end of the file";
    case TokenKind::Stray:
      break;
  }
  const auto byte = static_cast<unsigned char>(token.text.empty() ? '\0' : token.text[0]);
  if (byte > 0x20 && byte < 0x7F) return quoted(token.text);
  return "the byte " + number_text(static_cast<int>(byte));
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::string_view text() const { return text_; }
  /// Offset of the next byte to read.
  std::size_t position() const { return pos_; }

  Token next() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (is_blank(c)) {  // '\r' too: it ends CRLF lines, and a stray one is harmless
        ++pos_;
      } else if (c == '\n') {
        return end_of_line();
      } else if (c == '/' && at(pos_ + 1) == '/') {
        if (auto annotation = line_comment()) return *annotation;
      } else if (c == '/' && at(pos_ + 1) == '*') {
        const Line start = line_;
        if (block_comment_spans_lines()) return {TokenKind::EndOfLine, {}, start};
      } else if (is_word_char(c)) {
        return word();
      } else {
        return punctuation();
      }
    }
    return {TokenKind::EndOfFile, {}, line_};
  }

 private:
  char at(std::size_t pos) const { return pos < text_.size() ? text_[pos] : '\0'; }

  Token end_of_line() {
    Token token{TokenKind::EndOfLine, text_.substr(pos_, 1), line_};
    ++pos_;
    ++line_;
    return token;
  }

  // Skips a `//` comment up to (not including) its newline; returns it if it is an annotation.
  std::optional<Token> line_comment() {
    const std::size_t newline = std::min(text_.find('\n', pos_), text_.size());
    std::string_view body = text_.substr(pos_ + 2, newline - pos_ - 2);
    pos_ = newline;
    while (!body.empty() && is_blank(body.front())) body.remove_prefix(1);
    while (!body.empty() && body.back() == '\r') body.remove_suffix(1);
    if (body.substr(0, kAnnotationMark.size()) != kAnnotationMark) return std::nullopt;
    body.remove_prefix(kAnnotationMark.size());
    if (!body.empty() && !is_blank(body.front())) return std::nullopt;  // "@choreofoo"
    return Token{TokenKind::Annotation, body, line_};
  }

  // A comment over several lines separates statements like the line break it contains.
  bool block_comment_spans_lines() {
    const std::size_t close = text_.find("*/", pos_ + 2);
    if (close == std::string_view::npos) {
      fail_at(line_, "the comment '/*' is never closed; add '*/'");
    }
    const auto newlines = std::count(text_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                     text_.begin() + static_cast<std::ptrdiff_t>(close), '\n');
    line_ += newlines;
    pos_ = close + 2;
    return newlines > 0;
  }

  Token word() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_word_char(text_[pos_])) ++pos_;
    return {TokenKind::Word, text_.substr(start, pos_ - start), line_};
  }

  Token punctuation() {
    const char c = text_[pos_];
    const TokenKind kind = c == ':'   ? TokenKind::Colon
                           : c == '{' ? TokenKind::OpenBrace
                           : c == '}' ? TokenKind::CloseBrace
                                      : TokenKind::Stray;
    return {kind, text_.substr(pos_++, 1), line_};
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  Line line_ = 1;
};

// ---------------------------------------------------------------------------------------
// Reader: annotations.

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

// ---------------------------------------------------------------------------------------
// Reader: statements.

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

bool is_op_keyword(std::string_view word) {
  return same(word, "send") || same(word, "recv") || same(word, "calc");
}

class GoalParser {
 public:
  GoalParser(std::string_view text, detail::GoalSink& sink,
             const std::function<void(std::size_t)>& consumed)
      : lexer_(text), sink_(sink), consumed_(consumed) {}

  void parse() {
    advance();
    while (token_.kind != TokenKind::EndOfFile) parse_top_level_statement();
    if (!num_ranks_seen_) {
      fail_at(token_.line, "missing 'num_ranks N'; a GOAL file starts with 'num_ranks N'");
    }
  }

 private:
  void advance() { token_ = lexer_.next(); }

  bool at_word(std::string_view word) const {
    return token_.kind == TokenKind::Word && same(token_.text, word);
  }

  [[noreturn]] void fail_expected(std::string_view what) const {
    fail_at(token_.line, cat({"expected ", what, ", found ", describe(token_)}));
  }

  void expect_end_of_line(std::string_view what) {
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

  // ---- outside rank blocks

  void parse_top_level_statement() {
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

  void parse_header_annotation() {
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

  void parse_num_ranks() {
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

  void parse_rank_block() {
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
        fail_at(block.open_line, "rank " + rank_text(block) +
                                     "'s block is never closed; add '}' after its last line");
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

  static std::string rank_text(const Block& block) { return number_text(block.out.rank); }

  void check_new_rank(int rank, Line line) {
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
  Line first_block_line(int rank) const {
    Lexer again(lexer_.text());
    Token previous;
    for (Token t = again.next(); t.kind != TokenKind::EndOfFile; t = again.next()) {
      if (previous.kind == TokenKind::Word && previous.text == "rank" &&
          t.kind == TokenKind::Word && t.text == number_text(rank))
        return previous.line;
      previous = t;
    }
    return 0;
  }

  // ---- inside a rank block

  void parse_block_statement(Block& block) {
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

  void parse_item(Block& block) {
    const Token first = token_;
    advance();
    if (token_.kind == TokenKind::Colon) {
      if (!is_identifier(first.text)) {
        fail_at(first.line, "the label " + quoted(first.text) +
                                " is not a GOAL identifier (a letter, then letters, digits, '_')");
      }
      advance();
      if (token_.kind != TokenKind::Word || !is_op_keyword(token_.text)) {
        fail_expected("'send', 'recv' or 'calc' after the label '" + std::string(first.text) +
                      ":'");
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

  void parse_dependency(Block& block, const Token& dependent) {
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
    block.out.dependencies.push_back({dependent_index, defined_label(block, target),
                                      started ? detail::GoalDependency::Kind::Started
                                              : detail::GoalDependency::Kind::Completed});
  }

  std::uint32_t defined_label(const Block& block, const Token& label) const {
    const LabelTable::Entry* entry = block.labels.find(label.text);
    if (entry == nullptr) {
      fail_at(label.line, "dependency names label " + quoted(label.text) +
                              ", which is not defined earlier in rank " + rank_text(block) +
                              "'s block");
    }
    return entry->op_index;
  }

  void parse_op(Block& block, const Token& keyword, const std::optional<Token>& label) {
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

  void parse_message(Op& op, OpKind kind) {
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

  void parse_calc(Op& op) {
    op.kind = OpKind::Calc;
    op.nanoseconds = take_number<std::int64_t>("a time in ns after 'calc'", 0);
    if (op.nanoseconds > limits::kMaxNanoseconds) {
      fail_at(token_.line, "a time of " + number_text(op.nanoseconds) +
                               " ns is more than choreo takes (10^15 ns; docs/formats.md, Limits)");
    }
    parse_options(op, "calc");
  }

  // The optional `tag T`, `cpu C`, `nic N` after an op, each at most once, in any order.
  void parse_options(Op& op, std::string_view name) {
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
  std::int64_t take_size(std::string_view op) {
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

  void add_op(Block& block, Op op, const std::optional<Token>& label) {
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

  // First-of groups become dependencies, then the sink takes the block.
  void finish_block(Block& block) {
    for (const Block::AnyGroup& group : block.any_groups) resolve_any_group(block, group);
    sink_.block(block.out);
  }

  // Turns a group's labels into dependencies and drops the `requires` the writer put in its
  // place, so that choreo's GOAL round trip gives back the group and nothing else.
  void resolve_any_group(Block& block, const Block::AnyGroup& group) const {
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

namespace detail {

void read_goal(std::string_view text, GoalSink& sink,
               const std::function<void(std::size_t)>& consumed) {
  GoalParser(text, sink, consumed).parse();
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
  GoalScheduleSink sink;
  detail::read_goal(text, sink);
  return sink.take();
}

std::string schedule_to_goal(const Schedule& schedule) {
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
