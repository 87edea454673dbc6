#pragma once
// Private to the GOAL reader (goal_read.cpp): its tokens and the lexer that cuts the text into
// them, and the error messages that name a line (goal_lexer.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "goal_syntax.hpp"

namespace choreo::detail::goal {

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
std::string cat(std::initializer_list<std::string_view> parts);

[[noreturn]] void fail_at(Line line, const std::string& message);

/// `text` in quotes for a message, cut after 40 bytes; bytes that are not printable ASCII
/// appear as \xNN, so that a message is one clean line whatever the file holds.
std::string quoted(std::string_view text);

/// What a message calls `token`.
std::string describe(const Token& token);

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

}  // namespace choreo::detail::goal
