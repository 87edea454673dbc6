#pragma once
// A communication pattern: who sends how much to whom (paper 000's G = (P, A) with sizes).
#include <cstdint>
#include <vector>

namespace choreo {

struct Message {
  int src = 0;
  int dst = 0;
  std::int64_t bytes = 0;
  friend bool operator==(const Message&, const Message&) = default;
};

struct Pattern {
  int ranks = 0;
  std::vector<Message> messages;
  friend bool operator==(const Pattern&, const Pattern&) = default;
};

/// Throws choreo::Error when a message names a rank outside 0..ranks-1, sends to itself,
/// or has a negative size.
void validate(const Pattern& pattern);

namespace patterns {
/// Every rank sends `bytes` to every other rank.
Pattern alltoall(int ranks, std::int64_t bytes);
/// Every rank other than `root` sends `bytes` to `root`.
Pattern gather(int ranks, std::int64_t bytes, int root = 0);
/// `root` sends `bytes` to every other rank.
Pattern scatter(int ranks, std::int64_t bytes, int root = 0);
/// Every rank sends `bytes` to every lower rank (paper 000's triangle).
Pattern triangle(int ranks, std::int64_t bytes);
}  // namespace patterns

}  // namespace choreo
