// Random patterns for paper 000's evaluation: Barabási–Albert scale-free neighbour exchange,
// patterns of an exact density, and random message sizes. Sampling is choreo's own (on
// std::mt19937_64) so a seed gives the same pattern with every standard library.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "choreo/core/pattern.hpp"

namespace choreo {
namespace {

/// Uniform integer in [0, n), n > 0, without modulo bias: accept x >= 2^64 mod n.
std::uint64_t below(std::mt19937_64& rng, std::uint64_t n) {
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = rng();
    if (x >= threshold) return x % n;
  }
}

/// Fenwick tree over non-negative integer weights: point update, and the index whose
/// cumulative weight interval contains a given offset.
class Fenwick {
 public:
  explicit Fenwick(std::size_t size) : tree_(size + 1, 0) {
    while (top_ * 2 <= size) top_ *= 2;
  }
  void add(std::size_t index, std::int64_t delta) {
    for (std::size_t i = index + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  /// The smallest index i with w[0] + ... + w[i] > offset; needs 0 <= offset < total.
  std::size_t find(std::int64_t offset) const {
    std::size_t pos = 0;
    for (std::size_t step = top_; step > 0; step /= 2) {
      const std::size_t next = pos + step;
      if (next < tree_.size() && tree_[next] <= offset) {
        pos = next;
        offset -= tree_[next];
      }
    }
    return pos;  // 1-based position pos + 1, i.e. 0-based index pos
  }

 private:
  std::vector<std::int64_t> tree_;
  std::size_t top_ = 1;
};

void check_common(const char* what, int ranks, std::int64_t bytes) {
  if (ranks < 1) throw Error(fmt::format("{}: --ranks must be at least 1, not {}", what, ranks));
  if (bytes < 0) throw Error(fmt::format("{}: --bytes must be >= 0, not {}", what, bytes));
  limits::check_ranks(ranks, fmt::format("{}: --ranks", what));
  limits::check_bytes(bytes, fmt::format("{}: --bytes", what));
}

void sort_messages(Pattern& p) {
  std::sort(p.messages.begin(), p.messages.end(), [](const Message& a, const Message& b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  });
}

/// `count` distinct values of [0, n), a uniformly random subset, sorted. Draws with
/// replacement and tops up the shortfall until `count` distinct values are in hand; this is
/// the sequential "draw until count distinct" process, so every subset is equally likely.
/// Meant for count much smaller than n (a few rounds).
std::vector<std::uint64_t> sample_distinct(std::mt19937_64& rng, std::uint64_t n,
                                           std::uint64_t count) {
  std::vector<std::uint64_t> chosen, batch, merged;
  chosen.reserve(count);
  while (chosen.size() < count) {
    batch.clear();
    for (std::size_t i = chosen.size(); i < count; ++i) batch.push_back(below(rng, n));
    std::sort(batch.begin(), batch.end());
    merged.clear();
    std::merge(chosen.begin(), chosen.end(), batch.begin(), batch.end(),
               std::back_inserter(merged));
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    chosen.swap(merged);
  }
  return chosen;
}

}  // namespace

namespace patterns {

Pattern scale_free(int ranks, int m0, int m, std::int64_t bytes, std::uint64_t seed) {
  check_common("scale-free", ranks, bytes);
  if (m0 < 1) throw Error(fmt::format("scale-free: --m0 must be at least 1, not {}", m0));
  if (m0 > ranks)
    throw Error(fmt::format("scale-free: --m0 ({}) must be at most --ranks ({})", m0, ranks));
  if (m < 1) throw Error(fmt::format("scale-free: --m must be at least 1, not {}", m));
  if (m > m0)
    throw Error(fmt::format(
        "scale-free: --m ({}) must be at most --m0 ({}) so every new vertex finds {} distinct "
        "existing vertices to attach to",
        m, m0, m));

  std::mt19937_64 rng(seed);
  const auto n = static_cast<std::size_t>(ranks);
  const auto links = static_cast<std::size_t>(m);
  std::vector<std::int64_t> degree(n, 0);
  Fenwick weights(n);
  std::int64_t total = 0;

  Pattern p{ranks, {}};
  p.messages.reserve(2 * static_cast<std::size_t>(ranks - m0) * links);
  std::vector<std::size_t> targets;
  targets.reserve(links);
  std::vector<std::size_t> initial(static_cast<std::size_t>(m0));
  for (std::size_t i = 0; i < initial.size(); ++i) initial[i] = i;

  for (std::size_t v = static_cast<std::size_t>(m0); v < n; ++v) {
    targets.clear();
    if (total == 0) {
      // Only the first new vertex: the initial graph has no edges, so every degree is 0.
      // Draw m of the m0 initial vertices uniformly (partial Fisher–Yates).
      for (std::size_t k = 0; k < links; ++k) {
        const std::size_t j = k + static_cast<std::size_t>(below(rng, initial.size() - k));
        std::swap(initial[k], initial[j]);
        targets.push_back(initial[k]);
      }
    } else {
      // Preferential attachment: draw proportionally to degree, without replacement
      // (a drawn vertex's weight is removed until all m are drawn).
      std::int64_t remaining = total;
      for (std::size_t k = 0; k < links; ++k) {
        const auto offset =
            static_cast<std::int64_t>(below(rng, static_cast<std::uint64_t>(remaining)));
        const std::size_t t = weights.find(offset);
        targets.push_back(t);
        weights.add(t, -degree[t]);
        remaining -= degree[t];
      }
      for (std::size_t t : targets) weights.add(t, degree[t]);
    }
    for (std::size_t t : targets) {
      degree[t] += 1;
      weights.add(t, 1);
      const int a = static_cast<int>(v), b = static_cast<int>(t);
      p.messages.push_back({a, b, bytes});
      p.messages.push_back({b, a, bytes});
    }
    degree[v] += m;
    weights.add(v, m);
    total += 2 * static_cast<std::int64_t>(m);
  }
  sort_messages(p);
  return p;
}

Pattern random_density(int ranks, double density, std::int64_t bytes, std::uint64_t seed) {
  check_common("random", ranks, bytes);
  if (!(density >= 0.0 && density <= 1.0))
    throw Error(fmt::format("random: --density must be in [0, 1], not {}", density));

  const auto n = static_cast<std::uint64_t>(ranks);
  const std::uint64_t pairs = n * (n - 1);
  auto count = static_cast<std::uint64_t>(std::llround(density * static_cast<double>(pairs)));
  count = std::min(count, pairs);

  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> chosen;
  if (16 * count <= pairs) {
    chosen = sample_distinct(rng, pairs, count);  // sparse: O(count log count)
  } else {
    // Dense: selection sampling (Knuth's Algorithm S), one pass over all pairs; pair i is
    // taken with probability (still needed) / (pairs left), which gives exactly `count`.
    chosen.reserve(count);
    for (std::uint64_t i = 0; i < pairs && chosen.size() < count; ++i)
      if (below(rng, pairs - i) < count - chosen.size()) chosen.push_back(i);
  }

  // Pair index i = src * (n-1) + r, where dst = r, skipping src itself; sorted indices give
  // messages sorted by (src, dst).
  Pattern p{ranks, {}};
  p.messages.reserve(chosen.size());
  for (std::uint64_t i : chosen) {
    const std::uint64_t src = i / (n - 1), r = i % (n - 1);
    const std::uint64_t dst = r < src ? r : r + 1;
    p.messages.push_back({static_cast<int>(src), static_cast<int>(dst), bytes});
  }
  return p;
}

Pattern with_random_sizes(Pattern pattern, std::int64_t min_bytes, std::int64_t max_bytes,
                          std::uint64_t seed) {
  if (min_bytes < 0)
    throw Error(
        fmt::format("random sizes: the smallest size must be >= 0 bytes, not {}", min_bytes));
  if (min_bytes > max_bytes)
    throw Error(fmt::format(
        "random sizes: the smallest size ({} B) is larger than the largest ({} B); swap them",
        min_bytes, max_bytes));
  limits::check_bytes(max_bytes, "random sizes: the largest size");
  // An odd constant (2^64 / golden ratio) moves the seed off the pattern generators' stream.
  std::mt19937_64 rng(seed + 0x9e3779b97f4a7c15ULL);
  const std::uint64_t span = static_cast<std::uint64_t>(max_bytes - min_bytes) + 1;
  for (auto& m : pattern.messages)
    m.bytes = min_bytes + static_cast<std::int64_t>(below(rng, span));
  return pattern;
}

double density(const Pattern& pattern) {
  if (pattern.ranks <= 1) return 0.0;
  const double n = static_cast<double>(pattern.ranks);
  return static_cast<double>(pattern.messages.size()) / (n * (n - 1.0));
}

}  // namespace patterns
}  // namespace choreo
