// What the GOAL reader and writer spell alike (goal_syntax.hpp): op labels and the
// percent-encoding of the algorithm name.
#include "goal_syntax.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace choreo::detail::goal {
namespace {

bool is_plain_name_char(char c) {
  return is_letter(c) || is_digit(c) ||
         std::string_view("-_.~+:/,@()").find(c) != std::string_view::npos;
}

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

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

}  // namespace choreo::detail::goal
