// The ScaLAPACK adapter: NUMROC and the descriptor's matrix against ScaLAPACK's own
// formulas written out here (TOOLS/numroc.f, INDXG2P, INDXG2L, BLACS grid numbering).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "choreo/core/error.hpp"
#include "choreo/redist/scalapack.hpp"
#include "redist_reference.hpp"

namespace choreo::redist {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Rng;
using ::testing::ThrowsMessage;

// ScaLAPACK's NUMROC, transcribed from numroc.f.
std::int64_t fortran_numroc(std::int64_t n, std::int64_t nb, int iproc, int isrcproc, int nprocs) {
  const int mydist = (nprocs + iproc - isrcproc) % nprocs;
  const std::int64_t nblocks = n / nb;
  std::int64_t result = (nblocks / nprocs) * nb;
  const std::int64_t extrablks = nblocks % nprocs;
  if (mydist < extrablks)
    result += nb;
  else if (mydist == extrablks)
    result += n % nb;
  return result;
}

// INDXG2P and INDXG2L (0-based here): owner and local index of global index ig.
int fortran_indxg2p(std::int64_t ig, std::int64_t nb, int isrcproc, int nprocs) {
  return static_cast<int>((isrcproc + ig / nb) % nprocs);
}
std::int64_t fortran_indxg2l(std::int64_t ig, std::int64_t nb, int nprocs) {
  return nb * (ig / (nb * nprocs)) + ig % nb;
}

TEST(RedistScalapack, NumrocMatchesTheFortranFormula) {
  Rng rng(314);
  for (int trial = 0; trial < 20000; ++trial) {
    const std::int64_t n = rng.in(0, 500), nb = rng.in(1, 40);
    const int nprocs = rng.pick(1, 9), src = rng.pick(0, nprocs - 1),
              iproc = rng.pick(0, nprocs - 1);
    ASSERT_EQ(numroc(n, nb, iproc, src, nprocs), fortran_numroc(n, nb, iproc, src, nprocs))
        << n << " " << nb << " " << iproc << " " << src << " " << nprocs;
  }
  EXPECT_THROW(numroc(10, 0, 0, 0, 2), Error);
  EXPECT_THROW(numroc(10, 2, 0, 0, 0), Error);
  EXPECT_THROW(numroc(-1, 2, 0, 0, 1), Error);
}

TEST(RedistScalapack, DescriptorBecomesTheSameMatrixOnTheSameProcesses) {
  Rng rng(2718);
  for (int trial = 0; trial < 500; ++trial) {
    const int nprow = rng.pick(1, 4), npcol = rng.pick(1, 4);
    const std::int64_t m = rng.in(0, 60), n = rng.in(0, 60), mb = rng.in(1, 12), nb = rng.in(1, 12);
    const int rsrc = rng.pick(0, nprow - 1), csrc = rng.pick(0, npcol - 1);
    const std::int64_t lld =
        std::max<std::int64_t>(1, fortran_numroc(m, mb, rsrc, rsrc, nprow)) + rng.in(0, 3);
    BlacsGrid grid{nprow,
                   npcol,
                   rng.chance(50) ? GridOrder::RowMajor : GridOrder::ColumnMajor,
                   rng.pick(0, 5),
                   {}};
    const ArrayDistribution d = from_scalapack({1, 0, m, n, mb, nb, rsrc, csrc, lld}, grid);
    ASSERT_THAT(d.shape, ElementsAre(m, n));
    ASSERT_EQ(d.layout.leading_dim, lld);
    for (int position = 0; position < nprow * npcol; ++position) {
      // BLACS numbering: "Row" order numbers process (prow, pcol) prow * npcol + pcol.
      const std::vector<int> coords = proc_coords(d, position);
      const int expected_position = grid.order == GridOrder::RowMajor
                                        ? coords[0] * npcol + coords[1]
                                        : coords[1] * nprow + coords[0];
      ASSERT_EQ(expected_position, position);
      ASSERT_EQ(rank_at(d, position), grid.first_rank + position);
      ASSERT_THAT(local_extents(d, position),
                  ElementsAre(fortran_numroc(m, mb, coords[0], rsrc, nprow),
                              fortran_numroc(n, nb, coords[1], csrc, npcol)));
      ASSERT_THAT(local_strides(d, position), ElementsAre(1, lld));
    }
    const BlockCyclicDim rows = resolve_dim(d, 0), cols = resolve_dim(d, 1);
    for (std::int64_t i = 0; i < m; ++i) {
      ASSERT_EQ(rows.owner(i), fortran_indxg2p(i, mb, rsrc, nprow));
      ASSERT_EQ(rows.local_index(i), fortran_indxg2l(i, mb, nprow));
    }
    for (std::int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(cols.owner(j), fortran_indxg2p(j, nb, csrc, npcol));
      ASSERT_EQ(cols.local_index(j), fortran_indxg2l(j, nb, npcol));
    }
  }
}

TEST(RedistScalapack, GridMapRanksAreKept) {
  const ArrayDistribution d =
      from_scalapack({1, 0, 8, 8, 2, 2, 0, 0, 4}, {2, 2, GridOrder::ColumnMajor, 0, {7, 5, 3, 1}});
  EXPECT_EQ(rank_at(d, 1), 5);
  EXPECT_EQ(to_string(d), "cyclic(2),cyclic(2)@2x2:ranks=7,5,3,1");
}

TEST(RedistScalapack, BadDescriptorsNameTheFieldAndTheRange) {
  struct Case {
    ScalapackDesc desc;
    BlacsGrid grid;
    const char* message;
  };
  const BlacsGrid g22{2, 2, GridOrder::RowMajor, 0, {}};
  const std::vector<Case> cases = {
      {{2, 0, 8, 8, 2, 2, 0, 0, 4}, g22, "DTYPE_ (DESC(1)) is 2"},
      {{1, 0, -1, 8, 2, 2, 0, 0, 4}, g22, "M_ (DESC(3), global rows) is -1"},
      {{1, 0, 8, -8, 2, 2, 0, 0, 4}, g22, "N_ (DESC(4), global columns) is -8"},
      {{1, 0, 8, 8, 0, 2, 0, 0, 4}, g22, "MB_ (DESC(5), row block size) is 0"},
      {{1, 0, 8, 8, 2, -2, 0, 0, 4}, g22, "NB_ (DESC(6), column block size) is -2"},
      {{1, 0, 8, 8, 2, 2, 2, 0, 4}, g22, "RSRC_ (DESC(7)) is 2 but the BLACS grid has 2 process"},
      {{1, 0, 8, 8, 2, 2, 0, -1, 4}, g22, "CSRC_ (DESC(8)) is -1"},
      {{1, 0, 9, 8, 2, 2, 0, 0, 4}, g22, "LLD_ (DESC(9)) is 4 but process row 0 holds 5 rows"},
      {{1, 0, 0, 8, 2, 2, 0, 0, 0}, g22, "at least max(1, NUMROC"},
      {{1, 0, 8, 8, 2, 2, 0, 0, 4}, {0, 2, GridOrder::RowMajor, 0, {}}, "NPROW"},
      {{1, 0, 8, 8, 2, 2, 0, 0, 4}, {2, 0, GridOrder::RowMajor, 0, {}}, "NPCOL"},
      {{1, 0, 8, 8, 2, 2, 0, 0, 4}, {2, 2, GridOrder::RowMajor, 0, {0, 1, 1, 2}}, "appears twice"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    EXPECT_THAT([&] { from_scalapack(c.desc, c.grid); },
                ThrowsMessage<Error>(HasSubstr(c.message)));
  }
}

}  // namespace
}  // namespace choreo::redist
