#include "choreo/core/pattern.hpp"

#include <fmt/format.h>

#include "choreo/core/checked.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"

namespace choreo {

void validate(const Pattern& pattern) {
  if (pattern.ranks < 1)
    throw Error(fmt::format("a pattern needs at least 1 rank, not {}", pattern.ranks));
  limits::check_ranks(pattern.ranks, "the pattern's ranks");
  limits::check_ops(static_cast<std::int64_t>(pattern.messages.size()),
                    "the pattern's number of messages");
  for (std::size_t i = 0; i < pattern.messages.size(); ++i) {
    const Message& m = pattern.messages[i];
    auto where = [&] {
      return fmt::format("message {} ({} -> {}, {} B)", i, m.src, m.dst, m.bytes);
    };
    for (int r : {m.src, m.dst})
      if (r < 0 || r >= pattern.ranks)
        throw Error(fmt::format("{}: rank {} is out of range; ranks are 0..{}", where(), r,
                                pattern.ranks - 1));
    if (m.src == m.dst)
      throw Error(
          fmt::format("{}: a rank cannot send to itself in a pattern; drop the message", where()));
    if (m.bytes < 0) throw Error(fmt::format("{}: negative size; sizes are bytes >= 0", where()));
    limits::check_bytes(m.bytes, where());
  }
  total_bytes(pattern);  // throws when the sum does not fit 64 bits
}

std::int64_t total_bytes(const Pattern& pattern) {
  std::int64_t bytes = 0;
  for (const Message& m : pattern.messages)
    bytes = checked_add(bytes, m.bytes, "the pattern's bytes in all");
  return bytes;
}

namespace {
void check_sizes(int ranks, std::int64_t bytes, int root) {
  limits::check_ranks(ranks, "--ranks");
  limits::check_bytes(bytes, "--bytes");
  if (root < 0 || root >= ranks)
    throw Error(fmt::format("root {} is out of range; use 0..{}", root, ranks - 1));
}
}  // namespace

namespace patterns {

Pattern alltoall(int ranks, std::int64_t bytes) {
  check_sizes(ranks, bytes, 0);
  Pattern p{ranks, {}};
  p.messages.reserve(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks - 1));
  for (int s = 0; s < ranks; ++s)
    for (int d = 0; d < ranks; ++d)
      if (s != d) p.messages.push_back({s, d, bytes});
  return p;
}

Pattern gather(int ranks, std::int64_t bytes, int root) {
  check_sizes(ranks, bytes, root);
  Pattern p{ranks, {}};
  for (int s = 0; s < ranks; ++s)
    if (s != root) p.messages.push_back({s, root, bytes});
  return p;
}

Pattern scatter(int ranks, std::int64_t bytes, int root) {
  check_sizes(ranks, bytes, root);
  Pattern p{ranks, {}};
  for (int d = 0; d < ranks; ++d)
    if (d != root) p.messages.push_back({root, d, bytes});
  return p;
}

Pattern triangle(int ranks, std::int64_t bytes) {
  check_sizes(ranks, bytes, 0);
  Pattern p{ranks, {}};
  for (int s = 0; s < ranks; ++s)
    for (int d = 0; d < s; ++d) p.messages.push_back({s, d, bytes});
  return p;
}

}  // namespace patterns
}  // namespace choreo
