// The GOAL reader's error messages (goal_lexer.hpp): every one names its line.
#include "goal_lexer.hpp"

#include <initializer_list>
#include <string>
#include <string_view>

#include "choreo/core/error.hpp"

namespace choreo::detail::goal {

std::string cat(std::initializer_list<std::string_view> parts) {
  std::string text;
  for (const std::string_view part : parts) text += part;
  return text;
}

[[noreturn]] void fail_at(Line line, const std::string& message) {
  throw Error("line " + number_text(line) + ": " + message);
}

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

}  // namespace choreo::detail::goal
