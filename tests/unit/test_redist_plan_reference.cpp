// Plans against a naive reference on random configurations. The reference walks every
// element of the array, finds its owner and local offset on both sides from the HPF formulas
// (written here from the distribution's fields, sharing nothing with the library), and lists
// the elements every (source rank, target rank) pair must move. The plan must list exactly
// those, at exactly those local offsets, with and without each reduction.
#include <gtest/gtest.h>

#include <array>
#include <map>

#include "choreo/redist/plan.hpp"
#include "redist_reference.hpp"

namespace choreo::redist {
namespace {

using testing::canonical;
using testing::Rng;

// ---- the reference -----------------------------------------------------------------------

struct RefDim {
  std::int64_t n = 0, m = 1;  // extent, block size
  int p = 1, first = 0;       // processors, processor of block 0
  int grid_dim = -1;          // -1: not distributed
};

std::vector<RefDim> ref_dims(const ArrayDistribution& d) {
  std::vector<RefDim> dims;
  int next_grid_dim = 0;
  for (std::size_t k = 0; k < d.shape.size(); ++k) {
    RefDim r;
    r.n = d.shape[k];
    const DimDistribution& dd = d.dims[k];
    if (dd.kind == DimKind::Collapsed) {
      r.m = std::max<std::int64_t>(1, r.n);
    } else {
      r.grid_dim = next_grid_dim++;
      r.p = d.grid[static_cast<std::size_t>(r.grid_dim)];
      r.first = dd.first_proc;
      // HPF: block is cyclic(ceil(N / p)).
      r.m = dd.kind == DimKind::Block ? std::max<std::int64_t>(1, (r.n + r.p - 1) / r.p)
                                      : dd.block_size;
    }
    dims.push_back(r);
  }
  return dims;
}

int ref_owner(const RefDim& r, std::int64_t i) {
  return static_cast<int>((i / r.m + r.first) % r.p);
}
std::int64_t ref_local(const RefDim& r, std::int64_t i) { return i / (r.m * r.p) * r.m + i % r.m; }
std::int64_t ref_extent(const RefDim& r, int proc) {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < r.n; ++i) count += ref_owner(r, i) == proc;
  return count;
}

// The rank owning the element whose per-dimension owners are `procs`.
int ref_rank(const ArrayDistribution& d, const std::vector<RefDim>& dims,
             const std::vector<int>& procs) {
  std::vector<int> grid_coords;
  for (std::size_t k = 0; k < dims.size(); ++k)
    if (dims[k].grid_dim >= 0) grid_coords.push_back(procs[k]);
  int position = 0;
  const std::size_t g = grid_coords.size();
  for (std::size_t step = 0; step < g; ++step) {
    // Horner's rule from the slowest grid index to the fastest.
    const std::size_t k = d.order == GridOrder::ColumnMajor ? g - 1 - step : step;
    position = position * d.grid[k] + grid_coords[k];
  }
  return d.ranks.empty() ? d.first_rank + position : d.ranks[static_cast<std::size_t>(position)];
}

// The offset of the element at local indices `local` in the piece of the process `procs`.
std::int64_t ref_offset(const ArrayDistribution& d, const std::vector<RefDim>& dims,
                        const std::vector<int>& procs, const std::vector<std::int64_t>& local) {
  std::int64_t offset = 0, stride = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    offset += local[k] * stride;
    const std::int64_t extent = std::max<std::int64_t>(1, ref_extent(dims[k], procs[k]));
    stride = k == 0 && d.layout.leading_dim > 0 ? d.layout.leading_dim : stride * extent;
  }
  return offset;
}

using Moved = std::array<std::int64_t, 3>;  // global flat index, source offset, target offset
using PairElements = std::map<std::pair<int, int>, std::vector<Moved>>;

struct Placement {
  int rank;
  std::int64_t offset;
};

Placement ref_place(const ArrayDistribution& d, const std::vector<RefDim>& dims,
                    const std::vector<std::int64_t>& index) {
  std::vector<int> procs;
  std::vector<std::int64_t> local;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    procs.push_back(ref_owner(dims[k], index[k]));
    local.push_back(ref_local(dims[k], index[k]));
  }
  return {ref_rank(d, dims, procs), ref_offset(d, dims, procs, local)};
}

PairElements reference(const ArrayDistribution& from, const ArrayDistribution& to) {
  PairElements out;
  const std::vector<RefDim> fd = ref_dims(from), td = ref_dims(to);
  std::int64_t total = 1;
  for (std::int64_t n : from.shape) total *= n;
  std::vector<std::int64_t> index(from.shape.size());
  for (std::int64_t flat = 0; flat < total; ++flat) {
    std::int64_t rest = flat;
    for (std::size_t k = 0; k < index.size(); ++k) {
      index[k] = rest % from.shape[k];
      rest /= from.shape[k];
    }
    const Placement s = ref_place(from, fd, index), t = ref_place(to, td, index);
    out[{s.rank, t.rank}].push_back({flat, s.offset, t.offset});
  }
  return out;
}

// ---- the plan, element by element ---------------------------------------------------------

// Walks every element of every section; also checks the triplets' form.
PairElements enumerate(const Plan& plan) {
  PairElements out;
  const std::vector<std::int64_t>& shape = plan.from.shape;
  for (const Transfer& transfer : plan.transfers) {
    std::vector<Moved>& moved = out[{transfer.source_rank, transfer.target_rank}];
    EXPECT_TRUE(moved.empty()) << "pair listed twice";
    for (const DimTransfer& dim : transfer.dims) {
      for (std::size_t k = 0; k < dim.global.size(); ++k) {
        EXPECT_TRUE(canonical(dim.global[k])) << to_string(dim.global[k]);
        if (k > 0) {
          EXPECT_LT(dim.global[k - 1].lower, dim.global[k].lower);
        }
        EXPECT_EQ(dim.source_local[k].count, dim.global[k].count());
        EXPECT_EQ(dim.target_local[k].count, dim.global[k].count());
      }
    }
    for (const Section& section : sections(transfer)) {
      const std::size_t nd = section.global.size();
      std::vector<std::int64_t> step(nd, 0);
      for (;;) {
        std::int64_t flat = 0, scale = 1, src = 0, tgt = 0;
        for (std::size_t d = 0; d < nd; ++d) {
          flat += (section.global[d].lower + step[d] * section.global[d].stride) * scale;
          scale *= shape[d];
          src += section.source_local[d].start + step[d] * section.source_local[d].stride;
          tgt += section.target_local[d].start + step[d] * section.target_local[d].stride;
        }
        moved.push_back({flat, src, tgt});
        std::size_t d = 0;
        while (d < nd && ++step[d] == section.global[d].count()) step[d++] = 0;
        if (d == nd) break;
      }
    }
    EXPECT_EQ(static_cast<std::int64_t>(moved.size()), transfer.elements);
  }
  return out;
}

// ---- random configurations ---------------------------------------------------------------

std::vector<std::int64_t> random_shape(Rng& rng) {
  switch (rng.pick(1, 3)) {
    case 1:
      return {rng.chance(3) ? 0 : rng.in(1, 400)};
    case 2:
      return {rng.in(1, 40), rng.in(1, 40)};
    default:
      return {rng.in(1, 12), rng.in(1, 12), rng.in(1, 12)};
  }
}

// `base` is shared by both sides so that block sizes often have a common factor, which is
// what reduction (1) needs.
DimDistribution random_dim(Rng& rng, std::int64_t extent, std::int64_t base) {
  const int roll = rng.pick(0, 99);
  if (roll < 15) return DimDistribution::collapsed();
  if (roll < 35) return DimDistribution::block();
  if (roll < 50) return DimDistribution::cyclic(1);
  if (roll < 80) return DimDistribution::cyclic(base * rng.in(1, 4));
  return DimDistribution::cyclic(rng.in(1, extent + 3));  // may exceed N / p
}

void random_ranks(Rng& rng, int comm_size, ArrayDistribution& d) {
  const int size = grid_size(d);
  const int roll = rng.pick(0, 2);
  if (roll == 0) d.first_rank = rng.pick(0, comm_size - size);
  if (roll == 1) {
    // A random subset of the communicator, in random order.
    std::vector<int> all(static_cast<std::size_t>(comm_size));
    for (int r = 0; r < comm_size; ++r) all[static_cast<std::size_t>(r)] = r;
    for (int k = comm_size - 1; k > 0; --k)
      std::swap(all[static_cast<std::size_t>(k)], all[static_cast<std::size_t>(rng.pick(0, k))]);
    d.ranks.assign(all.begin(), all.begin() + size);
  }
}

ArrayDistribution random_distribution(Rng& rng, const std::vector<std::int64_t>& shape,
                                      int comm_size, std::int64_t base) {
  ArrayDistribution d;
  d.shape = shape;
  for (std::int64_t n : shape) {
    d.dims.push_back(random_dim(rng, n, base));
    if (d.dims.back().kind != DimKind::Collapsed) d.grid.push_back(rng.pick(1, 4));
  }
  for (;;) {  // shrink the grid until the communicator holds it
    int size = 1;
    for (int g : d.grid) size *= g;
    if (size <= comm_size) break;
    *std::max_element(d.grid.begin(), d.grid.end()) -= 1;
  }
  for (std::size_t k = 0, g = 0; k < d.dims.size(); ++k) {
    if (d.dims[k].kind == DimKind::Collapsed) continue;
    const int extent = d.grid[g++];
    if (rng.chance(30)) d.dims[k].first_proc = rng.pick(0, extent - 1);
  }
  d.order = rng.chance(50) ? GridOrder::ColumnMajor : GridOrder::RowMajor;
  random_ranks(rng, comm_size, d);
  if (rng.chance(25)) {
    const RefDim first = ref_dims(d)[0];
    std::int64_t rows = 1;
    for (int p = 0; p < first.p; ++p) rows = std::max(rows, ref_extent(first, p));
    d.layout.leading_dim = rows + rng.in(0, 3);
  }
  return d;
}

struct Coverage {
  int gcd_reduced = 0, period_reduced = 0, both_reduced = 0, different_grid_sizes = 0,
      listed_ranks = 0, local_copies = 0, padded = 0, three_dims = 0;
};

void note_coverage(const Plan& plan, const CommSetOptions& options, Coverage& c) {
  bool gcd = false, period = false;
  for (const DimCommSets& dim : plan.dims) {
    gcd = gcd || dim.gcd_unit > 1;
    period = period || dim.period > 0;
  }
  c.gcd_reduced += gcd;
  c.period_reduced += period;
  c.both_reduced += gcd && period;
  if (options.reduce_by_gcd || options.reduce_to_period) return;  // count the rest once
  c.different_grid_sizes += grid_size(plan.from) != grid_size(plan.to);
  c.listed_ranks += !plan.from.ranks.empty() || !plan.to.ranks.empty();
  c.local_copies += plan.totals().local_copies > 0;
  c.padded += plan.from.layout.leading_dim > 0 || plan.to.layout.leading_dim > 0;
  c.three_dims += plan.from.shape.size() == 3;
}

TEST(RedistPlanReference, MatchesTheNaiveReferenceOnRandomConfigurations) {
  Rng rng(0x6f6e65);
  Coverage coverage;
  constexpr int kConfigurations = 1200;
  for (int config = 0; config < kConfigurations; ++config) {
    const std::vector<std::int64_t> shape = random_shape(rng);
    const int comm_size = rng.pick(1, 9);
    const std::int64_t base = rng.in(1, 4);
    const ArrayDistribution from = random_distribution(rng, shape, comm_size, base);
    const ArrayDistribution to = random_distribution(rng, shape, comm_size, base);
    const PairElements expected = reference(from, to);
    for (int reductions = 0; reductions < 4; ++reductions) {
      const CommSetOptions options{(reductions & 1) != 0, (reductions & 2) != 0, config % 2 == 1};
      SCOPED_TRACE(::testing::Message()
                   << "config " << config << ": " << to_string(from) << " -> " << to_string(to)
                   << " shape " << ::testing::PrintToString(shape) << " leading dims "
                   << from.layout.leading_dim << "/" << to.layout.leading_dim << " gcd "
                   << options.reduce_by_gcd << " period " << options.reduce_to_period);
      const Plan plan = make_plan(from, to, options);
      PairElements got = enumerate(plan);
      for (auto& [pair, moved] : got) std::sort(moved.begin(), moved.end());
      ASSERT_EQ(got, expected);

      PlanTotals want;
      for (const auto& [pair, moved] : expected) {
        const bool copy = pair.first == pair.second;
        (copy ? want.local_copies : want.messages) += 1;
        (copy ? want.copy_elements : want.message_elements) +=
            static_cast<std::int64_t>(moved.size());
      }
      const PlanTotals totals = plan.totals();
      ASSERT_EQ(totals.messages, want.messages);
      ASSERT_EQ(totals.message_elements, want.message_elements);
      ASSERT_EQ(totals.local_copies, want.local_copies);
      ASSERT_EQ(totals.copy_elements, want.copy_elements);
      note_coverage(plan, options, coverage);
    }
  }
  // The configurations must reach every case the reference is there to check.
  EXPECT_GE(coverage.gcd_reduced, 150);
  EXPECT_GE(coverage.period_reduced, 150);
  EXPECT_GE(coverage.both_reduced, 50);
  EXPECT_GE(coverage.different_grid_sizes, 300);
  EXPECT_GE(coverage.listed_ranks, 300);
  EXPECT_GE(coverage.local_copies, 300);
  EXPECT_GE(coverage.padded, 150);
  EXPECT_GE(coverage.three_dims, 200);
}

}  // namespace
}  // namespace choreo::redist
