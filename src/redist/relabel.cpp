#include "choreo/redist/relabel.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "choreo/core/error.hpp"
#include "choreo/redist/comm_sets.hpp"

namespace choreo::redist {
namespace {

/// Elements in the comm set of every (source processor, target processor) pair of dimension d.
std::vector<std::int64_t> pair_counts(const DimCommSets& sets) {
  std::vector<std::int64_t> counts(sets.sets.size(), 0);
  for (std::size_t k = 0; k < sets.sets.size(); ++k)
    for (const Triplet& t : sets.sets[k]) counts[k] += t.count();
  return counts;
}

}  // namespace

std::vector<int> max_weight_assignment(const std::vector<std::int64_t>& weight, int n) {
  if (n < 0 || weight.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n))
    throw Error(fmt::format("assignment: {} weights for a {}x{} matrix", weight.size(), n, n));
  // Minimum cost with cost = -weight; rows and columns 1-based, column 0 a sentinel.
  constexpr std::int64_t kInfinity = std::numeric_limits<std::int64_t>::max() / 4;
  const auto cost = [&](int row, int col) {
    return -weight[static_cast<std::size_t>(row - 1) * static_cast<std::size_t>(n) +
                   static_cast<std::size_t>(col - 1)];
  };
  const std::size_t size = static_cast<std::size_t>(n) + 1;
  std::vector<std::int64_t> u(size, 0), v(size, 0);
  std::vector<int> row_of(size, 0), way(size, 0);
  for (int row = 1; row <= n; ++row) {
    // Grow a shortest augmenting path from `row` (Dijkstra on reduced costs).
    row_of[0] = row;
    int col0 = 0;
    std::vector<std::int64_t> least(size, kInfinity);
    std::vector<char> used(size, 0);
    do {
      used[static_cast<std::size_t>(col0)] = 1;
      const int row0 = row_of[static_cast<std::size_t>(col0)];
      std::int64_t delta = kInfinity;
      int col1 = 0;
      for (int col = 1; col <= n; ++col) {
        const auto c = static_cast<std::size_t>(col);
        if (used[c]) continue;
        const std::int64_t reduced = cost(row0, col) - u[static_cast<std::size_t>(row0)] - v[c];
        if (reduced < least[c]) least[c] = reduced, way[c] = col0;
        if (least[c] < delta) delta = least[c], col1 = col;
      }
      for (std::size_t c = 0; c < size; ++c) {
        if (used[c]) {
          u[static_cast<std::size_t>(row_of[c])] += delta;
          v[c] -= delta;
        } else {
          least[c] -= delta;
        }
      }
      col0 = col1;
    } while (row_of[static_cast<std::size_t>(col0)] != 0);
    do {  // augment along the path
      const int col1 = way[static_cast<std::size_t>(col0)];
      row_of[static_cast<std::size_t>(col0)] = row_of[static_cast<std::size_t>(col1)];
      col0 = col1;
    } while (col0 != 0);
  }
  std::vector<int> result(static_cast<std::size_t>(n), -1);
  for (int col = 1; col <= n; ++col)
    result[static_cast<std::size_t>(row_of[static_cast<std::size_t>(col)] - 1)] = col - 1;
  return result;
}

Relabelling best_relabelling(const ArrayDistribution& from, const ArrayDistribution& to) {
  validate(from);
  validate(to);
  if (from.shape != to.shape)
    throw Error(fmt::format("the source array has shape {} and the target {}; give both the same",
                            fmt::join(from.shape, "x"), fmt::join(to.shape, "x")));
  const int n = grid_size(to);
  if (n > kRelabelMaxPositions)
    throw Error(
        fmt::format("the target grid has {} positions; relabelling solves an n x n "
                    "assignment and takes at most {}",
                    n, kRelabelMaxPositions));
  const std::size_t ndims = from.shape.size();
  std::vector<DimCommSets> dims;
  std::vector<std::vector<std::int64_t>> counts;
  for (std::size_t d = 0; d < ndims; ++d) {
    dims.push_back(comm_sets(resolve_dim(from, d), resolve_dim(to, d)));
    counts.push_back(pair_counts(dims.back()));
  }
  // The source processor coordinates of every rank that holds source data.
  std::vector<std::vector<int>> source_coords(static_cast<std::size_t>(grid_size(from)));
  std::vector<int> source_rank(source_coords.size());
  for (int p = 0; p < grid_size(from); ++p) {
    source_coords[static_cast<std::size_t>(p)] = proc_coords(from, p);
    source_rank[static_cast<std::size_t>(p)] = rank_at(from, p);
  }
  std::vector<int> target_ranks(static_cast<std::size_t>(n));
  for (int t = 0; t < n; ++t) target_ranks[static_cast<std::size_t>(t)] = rank_at(to, t);
  // weight[t][k]: elements target position t receives from target_ranks[k] as a source rank.
  std::vector<std::int64_t> weight(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
  for (std::size_t s = 0; s < source_coords.size(); ++s) {
    const auto k = std::find(target_ranks.begin(), target_ranks.end(), source_rank[s]);
    if (k == target_ranks.end()) continue;  // a rank that holds nothing of the target
    for (int t = 0; t < n; ++t) {
      const std::vector<int> tc = proc_coords(to, t);
      std::int64_t elements = 1;
      for (std::size_t d = 0; d < ndims && elements > 0; ++d)
        elements *= counts[d][dims[d].index(source_coords[s][d], tc[d])];
      weight[static_cast<std::size_t>(t) * static_cast<std::size_t>(n) +
             static_cast<std::size_t>(k - target_ranks.begin())] = elements;
    }
  }
  Relabelling r;
  r.elements = 1;
  for (std::int64_t e : from.shape) r.elements *= e;
  // The given assignment is position t -> column t; keep it where nothing better exists by
  // favouring it by a tie-breaking bonus that no real gain can be traded for.
  const std::int64_t scale = static_cast<std::int64_t>(n) + 1;
  std::vector<std::int64_t> biased(weight.size());
  for (int t = 0; t < n; ++t)
    for (int k = 0; k < n; ++k) {
      const std::size_t at =
          static_cast<std::size_t>(t) * static_cast<std::size_t>(n) + static_cast<std::size_t>(k);
      biased[at] = weight[at] * scale + (t == k ? 1 : 0);
    }
  const std::vector<int> assignment = max_weight_assignment(biased, n);
  r.ranks.resize(static_cast<std::size_t>(n));
  for (int t = 0; t < n; ++t) {
    const std::size_t tt = static_cast<std::size_t>(t);
    r.ranks[tt] = target_ranks[static_cast<std::size_t>(assignment[tt])];
    r.kept_before += weight[tt * static_cast<std::size_t>(n) + tt];
    r.kept_after +=
        weight[tt * static_cast<std::size_t>(n) + static_cast<std::size_t>(assignment[tt])];
  }
  return r;
}

ArrayDistribution relabelled(ArrayDistribution to, const Relabelling& relabelling) {
  to.ranks = relabelling.ranks;
  return to;
}

}  // namespace choreo::redist
