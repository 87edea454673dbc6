#include "choreo/redist/scalapack.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "choreo/core/error.hpp"

namespace choreo::redist {
namespace {

void check_at_least(std::int64_t value, std::int64_t least, const char* field) {
  if (value < least)
    throw Error(
        fmt::format("ScaLAPACK descriptor: {} is {}; it must be at least {}", field, value, least));
}

void check_source(std::int64_t source, int procs, const char* field, const char* grid_side) {
  if (source < 0 || source >= procs)
    throw Error(
        fmt::format("ScaLAPACK descriptor: {} is {} but the BLACS grid has {} {}; use 0 "
                    "to {}",
                    field, source, procs, grid_side, procs - 1));
}

}  // namespace

std::int64_t numroc(std::int64_t n, std::int64_t nb, int iproc, int isrcproc, int nprocs) {
  if (n < 0 || nb < 1 || nprocs < 1)
    throw Error(fmt::format("numroc({}, {}, {}, {}, {}): need n >= 0, nb >= 1 and nprocs >= 1", n,
                            nb, iproc, isrcproc, nprocs));
  return BlockCyclicDim{n, nb, nprocs, isrcproc}.local_extent(iproc);
}

ArrayDistribution from_scalapack(const ScalapackDesc& desc, const BlacsGrid& grid) {
  if (desc[kDescDtype] != 1)
    throw Error(
        fmt::format("ScaLAPACK descriptor: DTYPE_ (DESC(1)) is {}; only dense "
                    "block-cyclic descriptors (DTYPE_ = 1) are supported",
                    desc[kDescDtype]));
  check_at_least(grid.nprow, 1, "NPROW (the BLACS grid's process rows)");
  check_at_least(grid.npcol, 1, "NPCOL (the BLACS grid's process columns)");
  check_at_least(desc[kDescM], 0, "M_ (DESC(3), global rows)");
  check_at_least(desc[kDescN], 0, "N_ (DESC(4), global columns)");
  check_at_least(desc[kDescMb], 1, "MB_ (DESC(5), row block size)");
  check_at_least(desc[kDescNb], 1, "NB_ (DESC(6), column block size)");
  check_source(desc[kDescRsrc], grid.nprow, "RSRC_ (DESC(7))", "process rows");
  check_source(desc[kDescCsrc], grid.npcol, "CSRC_ (DESC(8))", "process columns");
  const int rsrc = static_cast<int>(desc[kDescRsrc]);
  const int csrc = static_cast<int>(desc[kDescCsrc]);
  // The process row holding the first block holds the most rows.
  const std::int64_t most_rows = numroc(desc[kDescM], desc[kDescMb], rsrc, rsrc, grid.nprow);
  const std::int64_t lld_needed = std::max<std::int64_t>(1, most_rows);
  if (desc[kDescLld] < lld_needed)
    throw Error(
        fmt::format("ScaLAPACK descriptor: LLD_ (DESC(9)) is {} but process row {} holds "
                    "{} rows; every process reads this LLD, so it must be at least "
                    "max(1, NUMROC(M_, MB_, RSRC_, RSRC_, NPROW)) = {}",
                    desc[kDescLld], rsrc, most_rows, lld_needed));

  ArrayDistribution dist;
  dist.shape = {desc[kDescM], desc[kDescN]};
  dist.dims = {DimDistribution::cyclic(desc[kDescMb]), DimDistribution::cyclic(desc[kDescNb])};
  dist.dims[0].first_proc = rsrc;
  dist.dims[1].first_proc = csrc;
  dist.grid = {grid.nprow, grid.npcol};
  dist.order = grid.order;
  dist.first_rank = grid.first_rank;
  dist.ranks = grid.ranks;
  dist.layout.leading_dim = desc[kDescLld];
  validate(dist);
  return dist;
}

}  // namespace choreo::redist
