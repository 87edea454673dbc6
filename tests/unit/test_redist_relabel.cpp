// Relabelling (relabel.hpp) against brute force: on random small grids, every permutation of
// the target grid's ranks is tried, the elements it keeps in place counted by walking every
// element of the array with the block-cyclic formulas (written here), and the best must equal
// what best_relabelling keeps; the assignment solver is checked against all permutations of
// random matrices too.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "choreo/core/error.hpp"
#include "choreo/redist/relabel.hpp"
#include "redist_reference.hpp"

namespace choreo::redist::relabel_test {
namespace {

using testing::Rng;

/// The rank holding global element `index` under `d`, from the formulas (HPF block =
/// cyclic(ceil(N/p)); grid positions column- or row-major; an explicit rank list or a first rank).
int owner_rank(const ArrayDistribution& d, const std::vector<std::int64_t>& index) {
  std::vector<int> procs;  // per grid dimension
  for (std::size_t k = 0, g = 0; k < d.shape.size(); ++k) {
    const DimDistribution& dd = d.dims[k];
    if (dd.kind == DimKind::Collapsed) continue;
    const int p = d.grid[g++];
    const std::int64_t n = d.shape[k];
    const std::int64_t m =
        dd.kind == DimKind::Block ? std::max<std::int64_t>(1, (n + p - 1) / p) : dd.block_size;
    procs.push_back(static_cast<int>((index[k] / m + dd.first_proc) % p));
  }
  int position = 0, weight = 1;
  const std::size_t g = d.grid.size();
  for (std::size_t k = 0; k < g; ++k) {
    const std::size_t dim = d.order == GridOrder::ColumnMajor ? k : g - 1 - k;
    position += procs[dim] * weight;
    weight *= d.grid[dim];
  }
  return d.ranks.empty() ? d.first_rank + position : d.ranks[static_cast<std::size_t>(position)];
}

std::int64_t kept_in_place(const ArrayDistribution& from, const ArrayDistribution& to) {
  std::int64_t total = 1, kept = 0;
  for (std::int64_t e : from.shape) total *= e;
  for (std::int64_t linear = 0; linear < total; ++linear) {
    std::vector<std::int64_t> index;
    std::int64_t rest = linear;
    for (std::int64_t e : from.shape) index.push_back(rest % e), rest /= e;
    kept += owner_rank(from, index) == owner_rank(to, index);
  }
  return kept;
}

ArrayDistribution random_distribution(Rng& rng, const std::vector<std::int64_t>& shape, int ranks) {
  ArrayDistribution d;
  d.shape = shape;
  int procs = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    const int p = rng.pick(1, std::max(1, std::min(3, ranks / procs)));
    procs *= p;
    d.grid.push_back(p);
    DimDistribution dim =
        rng.chance(30) ? DimDistribution::block() : DimDistribution::cyclic(rng.in(1, 5));
    dim.first_proc = rng.pick(0, p - 1);
    d.dims.push_back(dim);
  }
  d.order = rng.chance(50) ? GridOrder::RowMajor : GridOrder::ColumnMajor;
  std::vector<int> all(static_cast<std::size_t>(ranks));
  std::iota(all.begin(), all.end(), 0);
  for (std::size_t k = all.size(); k > 1; --k)
    std::swap(all[k - 1], all[static_cast<std::size_t>(rng.pick(0, static_cast<int>(k) - 1))]);
  d.ranks.assign(all.begin(), all.begin() + procs);
  return d;
}

TEST(RedistRelabel, KeepsWhatBruteForceFinds) {
  Rng rng(4242);
  int improved = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const int ranks = rng.pick(1, 6);
    std::vector<std::int64_t> shape;
    for (int d = 0, n = rng.pick(1, 2); d < n; ++d) shape.push_back(rng.in(1, 17));
    const ArrayDistribution from = random_distribution(rng, shape, ranks);
    const ArrayDistribution to = random_distribution(rng, shape, ranks);
    SCOPED_TRACE(to_string(from) + " -> " + to_string(to));
    const Relabelling r = best_relabelling(from, to);
    // The target's own ranks, permuted.
    std::vector<int> given = to.ranks, mine = r.ranks;
    std::sort(given.begin(), given.end());
    std::sort(mine.begin(), mine.end());
    ASSERT_EQ(given, mine);
    EXPECT_EQ(r.kept_before, kept_in_place(from, to));
    EXPECT_EQ(r.kept_after, kept_in_place(from, relabelled(to, r)));
    std::int64_t best = 0;
    std::vector<int> perm = given;
    do {
      ArrayDistribution candidate = to;
      candidate.ranks = perm;
      best = std::max(best, kept_in_place(from, candidate));
    } while (std::next_permutation(perm.begin(), perm.end()));
    ASSERT_EQ(r.kept_after, best);
    EXPECT_GE(r.kept_after, r.kept_before);
    improved += r.kept_after > r.kept_before;
  }
  EXPECT_GT(improved, 20);  // the random cases are not all already optimal
}

TEST(RedistRelabel, AssignmentMatchesAllPermutations) {
  Rng rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = rng.pick(1, 7);
    std::vector<std::int64_t> w(static_cast<std::size_t>(n * n));
    for (auto& x : w) x = rng.in(-20, 40);
    const std::vector<int> a = max_weight_assignment(w, n);
    std::int64_t got = 0;
    for (int r = 0; r < n; ++r)
      got += w[static_cast<std::size_t>(r * n + a[static_cast<std::size_t>(r)])];
    std::vector<int> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::int64_t best = std::numeric_limits<std::int64_t>::min();
    do {
      std::int64_t s = 0;
      for (int r = 0; r < n; ++r)
        s += w[static_cast<std::size_t>(r * n + perm[static_cast<std::size_t>(r)])];
      best = std::max(best, s);
    } while (std::next_permutation(perm.begin(), perm.end()));
    ASSERT_EQ(got, best);
    std::vector<int> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    for (int k = 0; k < n; ++k) ASSERT_EQ(sorted[static_cast<std::size_t>(k)], k);
  }
}

TEST(RedistRelabel, TheGivenAssignmentStaysWhenNothingIsBetter) {
  const ArrayDistribution d = parse_distribution("cyclic(4),block@2x2", {16, 16});
  const Relabelling r = best_relabelling(d, d);
  EXPECT_EQ(r.kept_before, 256);
  EXPECT_EQ(r.kept_after, 256);
  EXPECT_EQ(r.ranks, (std::vector<int>{0, 1, 2, 3}));
}

TEST(RedistRelabel, RefusesGridsBeyondTheLimit) {
  const ArrayDistribution d = parse_distribution("cyclic@1024", {4096});
  EXPECT_THROW(best_relabelling(d, d), choreo::Error);
}

}  // namespace
}  // namespace choreo::redist::relabel_test
