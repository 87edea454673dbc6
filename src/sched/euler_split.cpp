// Euler-partition edge colouring of a bipartite multigraph with Δ colours (optimal.cpp has the
// overview and the costs).
//
// Layout: the Δ-regular graph has N vertices a side. Its edges sit in one array, grouped by left
// vertex, each left vertex's d edges in a block of its own: block u is [u d, u d + d). Splits
// and matchings keep that shape (stable, in place), so a left vertex and its edges are never
// stored: a range of N d edges with degree d is a whole subgraph. An edge keeps its sender and
// receiver ranks (the right vertex is looked up in a small table) or, for a dummy, src = -1 and
// the right vertex itself.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "../core/huge_pages.hpp"
#include "choreo/core/error.hpp"
#include "edge_colouring.hpp"

namespace choreo::detail {
namespace {

struct Edge {
  int src;            ///< sender rank, -1 for a dummy edge
  std::uint32_t dst;  ///< receiver rank, or the right vertex of a dummy edge
};

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint32_t kFirstHalf = std::uint32_t{1} << 31;  ///< flag in Colourer::link_

/// Next-fit: ranks in order share a vertex while their degrees sum to at most `capacity`. Two
/// consecutive vertices hold more than `capacity`, so there are at most 2E/capacity + 1.
/// Ranks without edges get none. Returns each vertex's degree.
std::vector<std::size_t> pack(const std::vector<int>& degree, std::size_t capacity,
                              std::vector<std::uint32_t>& vertex_of) {
  std::vector<std::size_t> load;
  vertex_of.assign(degree.size(), kNone);
  for (std::size_t r = 0; r < degree.size(); ++r) {
    const auto d = static_cast<std::size_t>(degree[r]);
    if (d == 0) continue;
    if (load.empty() || load.back() + d > capacity) load.push_back(0);
    vertex_of[r] = static_cast<std::uint32_t>(load.size() - 1);
    load.back() += d;
  }
  return load;
}

class Colourer {
 public:
  Colourer(const SenderLists& lists, PlanBuilder& out) : out_(out) {
    const auto degree = static_cast<std::size_t>(lists.degree);
    std::vector<std::uint32_t> left_of;
    std::vector<std::size_t> left = pack(lists.out_degree, degree, left_of);
    std::vector<std::size_t> right = pack(lists.in_degree, degree, right_of_);
    n_ = std::max(left.size(), right.size());
    left.resize(n_, 0);
    right.resize(n_, 0);
    if (static_cast<double>(n_) * static_cast<double>(degree) >= 0x1p31)
      throw Error(
          fmt::format("optimal: {} vertices x {} colours is too large a colouring", n_, degree));
    const std::size_t edges = n_ * degree;
    edges_.resize(edges);
    std::vector<std::size_t> cursor(n_);
    for (std::size_t u = 0; u < n_; ++u) cursor[u] = u * degree;
    for (std::size_t r = 0; r < lists.out_degree.size(); ++r)
      for (std::size_t k = lists.offset[r]; k < lists.offset[r + 1]; ++k)
        edges_[cursor[left_of[r]]++] = {static_cast<int>(r),
                                        static_cast<std::uint32_t>(lists.entries[k].dst)};
    // Dummy edges fill every vertex up to Δ: left and right vertices in order, each pair
    // joined by as many parallel edges as both still lack.
    for (std::size_t a = 0, b = 0; a < n_ && b < n_;) {
      if (left[a] == degree) {
        ++a;
      } else if (right[b] == degree) {
        ++b;
      } else {
        const std::size_t k = std::min(degree - left[a], degree - right[b]);
        std::fill_n(edges_.begin() + static_cast<std::ptrdiff_t>(cursor[a]), k,
                    Edge{-1, static_cast<std::uint32_t>(b)});
        cursor[a] += k;
        left[a] += k;
        right[b] += k;
      }
    }
    link_.resize(edges);
    scratch_.resize(edges / 2);
    pending_.resize(n_);
    mate_left_.resize(n_);
    mate_right_.resize(n_);
    on_path_.resize(n_);
  }

  void run(std::size_t degree) { solve(0, degree); }

 private:
  std::size_t right(const Edge& e) const { return e.src < 0 ? e.dst : right_of_[e.dst]; }

  /// Colours the d-regular subgraph in edges_[lo, lo + N d).
  void solve(std::size_t lo, std::size_t d) {
    while (d > 0) {
      Edge* e = edges_.data() + lo;
      if (d == 1) {
        paint(e, n_);
        return;
      }
      if (d % 2 == 1) {  // a perfect matching becomes a colour; the rest is (d-1)-regular
        remove_matching(e, d);
        --d;
        continue;
      }
      split(e, d);
      solve(lo, d / 2);
      lo += n_ * d / 2;
      d /= 2;
    }
  }

  void paint(const Edge* e, std::size_t count) {
    const int colour = colour_++;
    for (std::size_t i = 0; i < count; ++i)
      if (e[i].src >= 0) out_.add(e[i].src, static_cast<int>(e[i].dst), colour);
  }

  /// Splits a d-regular subgraph, d even, into d/2-regular halves: first half in place, second
  /// after it, each keeping the block shape and the order within blocks.
  ///
  /// Every vertex pairs up its edges: a left vertex edges 2k and 2k+1 of its block (so the pair
  /// of edge i is i ^ 1), a right vertex the first two it meets, the next two, ... Following
  /// pairs alternately at right and left vertices walks closed trails of even length (an
  /// Euler partition); putting the trail's edges alternately in the two halves gives every
  /// vertex exactly one edge of each of its pairs in each half. The walk marks the edges of
  /// the first half in link_ and only ever reads pairs of neighbouring edges, one cache line.
  void split(Edge* e, std::size_t d) {
    const std::size_t m = n_ * d;
    std::uint32_t* link = link_.data();
    std::fill(pending_.begin(), pending_.end(), kNone);
    for (std::size_t i = 0; i < m; ++i) {
      std::uint32_t& p = pending_[right(e[i])];
      if (p == kNone) {
        p = static_cast<std::uint32_t>(i);
      } else {
        link[i] = p;
        link[p] = static_cast<std::uint32_t>(i);
        p = kNone;
      }
    }
    for (std::size_t s = 0; s < m; s += 2) {
      if (((link[s] | link[s + 1]) & kFirstHalf) != 0) continue;  // trail already walked
      auto x = static_cast<std::uint32_t>(s);
      do {
        const std::uint32_t paired = link[x];  // at x's right vertex; goes to the second half
        link[x] = paired | kFirstHalf;
        x = paired ^ 1;  // its pair at its left vertex: first half again
      } while (x != s);
    }
    Edge* second = scratch_.data();
    for (std::size_t k = 0; k < m / 2; ++k) {
      const bool even_first = (link[2 * k] & kFirstHalf) != 0;
      const Edge a = e[2 * k], b = e[2 * k + 1];
      e[k] = even_first ? a : b;  // k <= 2k: nothing still to be read is overwritten
      second[k] = even_first ? b : a;
    }
    std::memcpy(static_cast<void*>(e + m / 2), second, m / 2 * sizeof(Edge));
  }

  /// Colours a perfect matching of the d-regular subgraph, d odd, and packs the rest into
  /// blocks of d - 1. Greedy first, then Goel-Kapralov-Khanna: from a random unmatched left
  /// vertex, walk random unmatched edges (right) and matching edges (left) until a free right
  /// vertex; the walk with its cycles cut is an augmenting path. In a regular bipartite graph
  /// the walks take O(N log N) expected steps in all.
  void remove_matching(Edge* e, std::size_t d) {
    std::fill(mate_left_.begin(), mate_left_.end(), kNone);    // index in its block
    std::fill(mate_right_.begin(), mate_right_.end(), kNone);  // left vertex
    unmatched_.clear();
    for (std::size_t u = 0; u < n_; ++u) {
      for (std::size_t j = 0; j < d; ++j) {
        const std::size_t v = right(e[u * d + j]);
        if (mate_right_[v] == kNone) {
          mate_right_[v] = static_cast<std::uint32_t>(u);
          mate_left_[u] = static_cast<std::uint32_t>(j);
          break;
        }
      }
      if (mate_left_[u] == kNone) unmatched_.push_back(static_cast<std::uint32_t>(u));
    }
    std::fill(on_path_.begin(), on_path_.end(), kNone);  // position in path_
    const auto degree = static_cast<std::uint32_t>(d);
    while (!unmatched_.empty()) {
      const std::size_t pick = random_below(static_cast<std::uint32_t>(unmatched_.size()));
      std::uint32_t u = unmatched_[pick];
      unmatched_[pick] = unmatched_.back();
      unmatched_.pop_back();
      path_.clear();  // (left vertex, edge index in its block) pairs
      while (true) {
        on_path_[u] = static_cast<std::uint32_t>(path_.size());
        std::uint32_t j;
        do j = random_below(degree);
        while (j == mate_left_[u]);
        path_.push_back(u);
        path_.push_back(j);
        const std::uint32_t w = mate_right_[right(e[std::size_t{u} * d + j])];
        if (w == kNone) break;
        if (on_path_[w] != kNone) {  // a cycle: cut it, go on from w
          for (std::size_t k = on_path_[w] + 2; k < path_.size(); k += 2)
            on_path_[path_[k]] = kNone;
          path_.resize(on_path_[w]);
        }
        u = w;
      }
      for (std::size_t k = 0; k < path_.size(); k += 2) {
        const std::uint32_t x = path_[k], j = path_[k + 1];
        mate_left_[x] = j;
        mate_right_[right(e[std::size_t{x} * d + j])] = x;
        on_path_[x] = kNone;
      }
    }
    const int colour = colour_++;
    std::size_t kept = 0;
    for (std::size_t u = 0; u < n_; ++u)
      for (std::size_t j = 0; j < d; ++j) {
        const Edge x = e[u * d + j];
        if (j != mate_left_[u]) {
          e[kept++] = x;
        } else if (x.src >= 0) {
          out_.add(x.src, static_cast<int>(x.dst), colour);
        }
      }
  }

  /// splitmix64; a fixed seed keeps plans deterministic.
  std::uint32_t random_below(std::uint32_t bound) {
    std::uint64_t z = (random_state_ += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    z ^= z >> 31;
    return static_cast<std::uint32_t>(((z >> 32) * bound) >> 32);
  }

  PlanBuilder& out_;
  std::size_t n_ = 0;                    ///< vertices a side
  std::vector<std::uint32_t> right_of_;  ///< receiver rank -> right vertex
  BigVector<Edge> edges_, scratch_;
  BigVector<std::uint32_t> link_;  ///< split: pair at the right vertex, kFirstHalf flag
  std::vector<std::uint32_t> pending_, mate_left_, mate_right_, on_path_, unmatched_, path_;
  std::uint64_t random_state_ = 0;
  int colour_ = 0;
};

}  // namespace

void colour_by_euler_split(const SenderLists& lists, PlanBuilder& out) {
  if (lists.degree > 0) Colourer(lists, out).run(static_cast<std::size_t>(lists.degree));
}

}  // namespace choreo::detail
