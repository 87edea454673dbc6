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
/// or has a size outside 0..2^50, when ranks or messages exceed choreo's limits
/// (choreo/core/limits.hpp), or when the bytes of all messages do not fit 64 bits.
void validate(const Pattern& pattern);

/// The bytes of all messages; throws choreo::Error when the sum does not fit 64 bits.
std::int64_t total_bytes(const Pattern& pattern);

namespace patterns {
/// Every rank sends `bytes` to every other rank.
Pattern alltoall(int ranks, std::int64_t bytes);
/// Every rank other than `root` sends `bytes` to `root`.
Pattern gather(int ranks, std::int64_t bytes, int root = 0);
/// `root` sends `bytes` to every other rank.
Pattern scatter(int ranks, std::int64_t bytes, int root = 0);
/// Every rank sends `bytes` to every lower rank (paper 000's triangle).
Pattern triangle(int ranks, std::int64_t bytes);

/// Neighbour exchange on a Barabási–Albert scale-free graph, as paper 000 builds it: start
/// with `m0` vertices and no edges; each new vertex v = m0..ranks-1 attaches to `m` distinct
/// existing vertices chosen by preferential attachment, i.e. with probability proportional to
/// their current degree (degrees as they were before v arrived; the m targets are drawn one
/// after another without replacement, each draw proportional to degree among the vertices
/// not yet drawn). Zero degrees: while the total degree is 0 (only for the first new vertex,
/// v = m0) the m targets are drawn uniformly among the m0 initial vertices. From then on at
/// least m + 1 vertices have a positive degree, so pure degree-proportional drawing always
/// finds m distinct targets; initial vertices the first new vertex did not pick keep degree
/// 0 and are never picked. Every undirected edge {u, v} becomes the messages u -> v and
/// v -> u of `bytes` each, so there are exactly 2 (ranks - m0) m messages (the numerator of
/// paper 000's eq. 19), sorted by (src, dst). Deterministic for a seed (std::mt19937_64 with
/// choreo's own integer sampling, so the same on every standard library). O(ranks m log
/// ranks). Requires 1 <= m <= m0 <= ranks and bytes >= 0; throws choreo::Error otherwise.
Pattern scale_free(int ranks, int m0, int m, std::int64_t bytes, std::uint64_t seed);

/// A directed pattern of exactly round(density n (n-1)) distinct ordered pairs (i != j),
/// chosen uniformly at random among all such sets, `bytes` each, sorted by (src, dst).
/// Deterministic for a seed (std::mt19937_64, own sampling). Requires density in [0, 1],
/// ranks >= 1 and bytes >= 0; throws choreo::Error otherwise.
Pattern random_density(int ranks, double density, std::int64_t bytes, std::uint64_t seed);

/// The same pattern with each message's size drawn independently and uniformly from
/// [min_bytes, max_bytes], in message order. Deterministic for a seed (std::mt19937_64 with
/// choreo's own integer sampling), on a stream of its own: passing the seed that made the
/// pattern does not tie the sizes to its shape. Requires 0 <= min_bytes <= max_bytes; throws
/// choreo::Error otherwise.
Pattern with_random_sizes(Pattern pattern, std::int64_t min_bytes, std::int64_t max_bytes,
                          std::uint64_t seed);

/// Paper 000's eq. 18: D = |A| / (n (n-1)), with |A| the number of messages (a pattern is a
/// simple digraph, one message per ordered pair); 0 when n = 1.
double density(const Pattern& pattern);
}  // namespace patterns

}  // namespace choreo
