// Open MPI coll_tuned rules -> decisions: both formats, read as Open MPI 5.0 reads them
// (rules_table.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/select/rules_export.hpp"
#include "rules_table.hpp"

namespace choreo::detail::rules {
namespace {

/// An integer of a rules file with its line number.
struct Token {
  std::int64_t value;
  int line;
  bool after_blanks;  ///< only spaces and tabs since the token before it (same line, no comment)
};

/// A rules file's version (1 without a version line) and integers; '#' starts a comment.
struct OmpiRulesTokens {
  std::int64_t version = 1;
  std::vector<Token> tokens;
};

constexpr std::string_view kVersionPrefix = "rule-file-version-";

std::string shown_byte(char ch) {
  const auto byte = static_cast<unsigned char>(ch);
  return byte >= 0x20 && byte < 0x7f ? std::string(1, ch) : fmt::format("\\x{:02x}", byte);
}

OmpiRulesTokens ompi_tokens(std::string_view text) {
  OmpiRulesTokens out;
  std::size_t i = 0;
  if (text.starts_with(kVersionPrefix)) {
    i = kVersionPrefix.size();
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 3) ++i;
    const std::string_view digits = text.substr(start, i - start);
    if (digits != "1" && digits != "2") {
      const std::size_t end = std::min(text.find_first_of(" \t\r\n#"), std::size_t{40});
      throw Error(
          fmt::format("line 1: '{}': choreo reads versions 1 (classic) and 2 (Open MPI 5.0)",
                      text.substr(0, end)));
    }
    out.version = digits[0] - '0';
  }
  int line = 1;
  bool blanks_only = false;  // only spaces and tabs since the last token
  for (; i < text.size();) {
    const char ch = text[i];
    if (ch == ' ' || ch == '\t') {
      ++i;
      continue;
    }
    if (ch == '\n') {
      ++line;
      ++i;
    } else if (ch == '\r' || ch == '\f' || ch == '\v') {
      ++i;
    } else if (ch == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (ch >= '0' && ch <= '9') {
      std::int64_t value = 0;
      const std::size_t start = i;
      for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        const int digit = text[i] - '0';
        if (value > (kInt64Max - digit) / 10)
          throw Error(fmt::format("line {}: number {}... does not fit 64 bits", line,
                                  text.substr(start, 20)));
        value = value * 10 + digit;
      }
      if (i < text.size() && text[i] != '#' && text[i] != '\n' && text[i] != ' ' &&
          text[i] != '\t' && text[i] != '\r')
        throw Error(
            fmt::format("line {}: '{}' is not a number; an Open MPI rules file holds "
                        "non-negative decimal integers and # comments",
                        line, text.substr(start, i - start + 1)));
      if (text[start] == '0' && i - start > 1)
        throw Error(fmt::format(
            "line {}: {} has a leading zero, which Open MPI reads as an octal number; write it "
            "without",
            line, text.substr(start, i - start)));
      out.tokens.push_back({value, line, blanks_only});
      blanks_only = true;
      continue;
    } else if (text.substr(i).starts_with("rule-file-version")) {
      throw Error(
          fmt::format("line {}: a rule-file-version line must be the first bytes of the file: "
                      "Open MPI 5.0 looks for it nowhere else (and Open MPI 4.1.4 not at all)",
                      line));
    } else {
      throw Error(
          fmt::format("line {}: unexpected '{}'; an Open MPI rules file holds "
                      "non-negative decimal integers and # comments",
                      line, shown_byte(ch)));
    }
    blanks_only = false;
  }
  return out;
}

class TokenReader {
 public:
  explicit TokenReader(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  /// Whether the next integer follows the last one on its line after spaces and tabs only.
  bool next_on_same_line() const {
    return position_ < tokens_.size() && tokens_[position_].after_blanks;
  }

  /// The next integer, described as `what` in the error when the file ends.
  Token next(const std::string& what) {
    if (position_ == tokens_.size())
      throw Error(fmt::format("line {}: the file ends where {} should be", last_line(), what));
    return tokens_[position_++];
  }
  bool done() const { return position_ == tokens_.size(); }
  int last_line() const { return tokens_.empty() ? 1 : tokens_.back().line; }

 private:
  std::vector<Token> tokens_;
  std::size_t position_ = 0;
};

}  // namespace
}  // namespace choreo::detail::rules

namespace choreo {

std::vector<CollectiveDecision> parse_ompi_rules(std::string_view text) {
  using namespace detail::rules;
  OmpiRulesTokens tokens = ompi_tokens(text);
  const std::int64_t version = tokens.version;
  TokenReader in(std::move(tokens.tokens));
  std::vector<CollectiveDecision> decisions;
  const Token ncol = in.next("the number of collectives");
  if (ncol.value > kOmpiCollCount)
    throw Error(fmt::format("line {}: {} collectives; Open MPI 4.1.4 has {}", ncol.line, ncol.value,
                            kOmpiCollCount));
  std::set<std::int64_t> seen;
  for (std::int64_t n = 0; n < ncol.value; ++n) {
    const Token id = in.next(fmt::format("the id of collective {} of {}", n + 1, ncol.value));
    if (id.value >= kOmpiCollCount)
      throw Error(fmt::format("line {}: collective id {} is not one of Open MPI 4.1.4's 0 to {}",
                              id.line, id.value, kOmpiCollCount - 1));
    const auto idx = static_cast<std::size_t>(id.value);
    const Collective* c = find_collective(kOmpiCollectives[idx]);
    if (c == nullptr)
      throw Error(fmt::format(
          "line {}: collective id {} ({}) is not one choreo decides; it reads {}", id.line,
          id.value, kOmpiCollectives[idx], join(collectives(), [](const Collective& k) {
            return fmt::format("{} ({})", k.name, k.ompi_id);
          })));
    if (!seen.insert(id.value).second)
      throw Error(fmt::format("line {}: collective {} ({}) appears a second time", id.line,
                              id.value, c->name));
    const Token ncomm = in.next(fmt::format("the number of communicator sizes of {}", c->name));
    std::int64_t previous_size = -1;
    for (std::int64_t k = 0; k < ncomm.value; ++k) {
      const Token comm = in.next(fmt::format("communicator size {} of {}", k + 1, c->name));
      if (comm.value <= previous_size)
        throw Error(
            fmt::format("line {}: communicator size {} of {} is not above the size {} "
                        "before it; sizes must ascend",
                        comm.line, comm.value, c->name, previous_size));
      if (comm.value > kIntMax)
        throw Error(fmt::format("line {}: communicator size {} does not fit an int", comm.line,
                                comm.value));
      previous_size = comm.value;
      const std::string where = fmt::format("{} on {} ranks", c->name, comm.value);
      const Token nmsg = in.next(fmt::format("the number of message sizes of {}", where));
      if (nmsg.value == 0)
        throw Error(
            fmt::format("line {}: {} has no message size rules; give at least one "
                        "from 0",
                        nmsg.line, where));
      CollectiveDecision d{std::string(c->name), static_cast<int>(comm.value), {}};
      bool fallback = false;
      for (std::int64_t m = 0; m < nmsg.value; ++m) {
        const std::string rule = fmt::format("message rule {} of {}", m + 1, where);
        const Token size = in.next(fmt::format("the message size of {}", rule));
        const Token alg = in.next(fmt::format("the algorithm of {}", rule));
        in.next(fmt::format("the fan-in/out of {}", rule));
        in.next(fmt::format("the segment size of {}", rule));
        // Open MPI 5.0 reads a fifth number only in a version 2 file, and only on the same line.
        if (version > 1 && in.next_on_same_line())
          in.next(fmt::format("the max_requests of {}", rule));
        if (m == 0 && size.value != 0)
          throw Error(
              fmt::format("line {}: the first message size of {} is {}; Open MPI needs "
                          "it to be 0",
                          size.line, where, size.value));
        if (alg.value == 0) {
          if (nmsg.value != 1)
            throw Error(
                fmt::format("line {}: algorithm 0 (Open MPI's fixed decision) in {}; "
                            "choreo reads it only as the single rule of a "
                            "communicator size",
                            alg.line, rule));
          fallback = true;
          continue;
        }
        const auto number = static_cast<std::size_t>(alg.value);
        const auto a = std::ranges::find_if(
            c->algorithms, [&](const Algorithm& x) { return x.ompi == alg.value; });
        if (a == c->algorithms.end())
          throw Error(fmt::format(
              "line {}: {} algorithm {} ({}) has no choreo generator; choreo reads {}", alg.line,
              c->name, alg.value,
              number < c->ompi_numbers.size() ? c->ompi_numbers[number]
                                              : std::string_view("not an Open MPI 4.1.4 one"),
              available(*c, Library::ompi)));
        std::int64_t from = size.value;
        if (c->ompi_times_ranks) {
          if (comm.value == 0)
            throw Error(
                fmt::format("line {}: {} on 0 ranks has algorithm rules; choreo "
                            "decisions are for communicators of 1 rank or more",
                            size.line, c->name));
          from = ceil_div(size.value, comm.value);
        }
        if (!d.rules.empty() && from <= d.rules.back().from_bytes)
          throw Error(
              fmt::format("line {}: message size {} of {} is not above the rule before "
                          "it{}; sizes must ascend",
                          size.line, size.value, where,
                          c->ompi_times_ranks ? " once divided by the communicator size" : ""));
        d.rules.push_back({from, std::string(a->name)});
      }
      if (fallback) continue;
      if (comm.value == 0)
        throw Error(
            fmt::format("line {}: {} on 0 ranks has algorithm rules; choreo decisions "
                        "are for communicators of 1 rank or more",
                        comm.line, c->name));
      decisions.push_back(std::move(d));
    }
  }
  if (!in.done())
    throw Error(fmt::format("line {}: more numbers after the {} collectives the file declares",
                            in.next("").line, ncol.value));
  sort_decisions(decisions);
  return decisions;
}

}  // namespace choreo
