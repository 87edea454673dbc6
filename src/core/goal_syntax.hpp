#pragma once
// Private to the GOAL reader and writer (goal_read.cpp, goal_write.cpp): what both spell alike.
// Character classes and numbers (ASCII only, locale independent), op labels, and the
// percent-encoding of the algorithm name (goal_syntax.cpp).
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace choreo::detail::goal {

using Line = std::int64_t;

inline constexpr std::string_view kAnnotationMark = "@choreo";

// A tiny file must not make the reader allocate gigabytes: num_ranks may be at most this or
// the file size in bytes, whichever is larger (a writer-made file needs > 10 bytes per rank).

// ---------------------------------------------------------------------------------------
// Character classes and numbers (ASCII only, locale independent).

inline bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
// Words are keywords, labels, numbers ("-1") and sizes ("64b").
inline bool is_word_char(char c) {
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

inline bool is_identifier(std::string_view text) {
  if (text.empty() || !is_letter(text.front())) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_letter(c) || is_digit(c) || c == '_'; });
}

inline bool all_digits(std::string_view text) {
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

void append_label(std::string& out, std::int64_t id);
std::optional<std::int64_t> id_of_label(std::string_view label);

// ---------------------------------------------------------------------------------------
// The algorithm name is one annotation value: bytes outside a small safe set are written
// %XX so that spaces, '=' and non-ASCII survive the round trip exactly.

std::string percent_encode(std::string_view name);
std::optional<std::string> percent_decode(std::string_view text);

}  // namespace choreo::detail::goal
