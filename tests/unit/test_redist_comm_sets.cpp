// Comm sets of one dimension: the paper's index sets and reductions on its examples (values
// worked out by hand here, correcting the paper's typos), compactness, and the work the
// reductions save.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "choreo/core/error.hpp"
#include "choreo/redist/comm_sets.hpp"
#include "redist_reference.hpp"

namespace choreo::redist {
namespace {

using testing::elements_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

BlockCyclicDim dim(std::int64_t n, std::int64_t block, int procs, int first = 0) {
  return BlockCyclicDim{n, block, procs, first};
}

const CommSetOptions kNoReductions{false, false, false};

TEST(RedistCommSets, IndexSetsOfThePapersExample) {
  // Sec. 2.1: A(16,16) (block, block) on p(2,2); B (cyclic, cyclic(4)) on q(2,2).
  EXPECT_THAT(index_sets(dim(16, 8, 2)),
              ElementsAre(OwnedTriplet{{0, 7, 1}, 0}, OwnedTriplet{{8, 15, 1}, 1}));
  EXPECT_THAT(index_sets(dim(16, 1, 2)),
              ElementsAre(OwnedTriplet{{0, 14, 2}, 0}, OwnedTriplet{{1, 15, 2}, 1}));
  EXPECT_THAT(index_sets(dim(16, 4, 2)),
              ElementsAre(OwnedTriplet{{0, 3, 1}, 0}, OwnedTriplet{{4, 7, 1}, 1},
                          OwnedTriplet{{8, 11, 1}, 0}, OwnedTriplet{{12, 15, 1}, 1}));
  // One processor: one triplet, whatever the block size; a source offset shifts owners.
  EXPECT_THAT(index_sets(dim(16, 4, 1)), ElementsAre(OwnedTriplet{{0, 15, 1}, 0}));
  EXPECT_THAT(index_sets(dim(5, 1, 3, 2)),
              ElementsAre(OwnedTriplet{{0, 3, 3}, 2}, OwnedTriplet{{1, 4, 3}, 0},
                          OwnedTriplet{{2, 2, 1}, 1}));
  EXPECT_TRUE(index_sets(dim(0, 1, 3)).empty());
}

TEST(RedistCommSets, GcdReductionComputesBlock8ToCyclic4AsBlock2ToCyclic1) {
  for (const CommSetOptions& options : {CommSetOptions{}, kNoReductions}) {
    const DimCommSets sets = comm_sets(dim(16, 8, 2), dim(16, 4, 2), options);
    EXPECT_EQ(sets.gcd_unit, options.reduce_by_gcd ? 4 : 1);
    EXPECT_THAT(sets.between(0, 0), ElementsAre(Triplet{0, 3, 1}));
    EXPECT_THAT(sets.between(0, 1), ElementsAre(Triplet{4, 7, 1}));
    EXPECT_THAT(sets.between(1, 0), ElementsAre(Triplet{8, 11, 1}));
    EXPECT_THAT(sets.between(1, 1), ElementsAre(Triplet{12, 15, 1}));
  }
}

TEST(RedistCommSets, GcdReductionOnlyWhenItMakesABlockSizeOne) {
  EXPECT_EQ(comm_sets(dim(100, 4, 2), dim(100, 6, 3)).gcd_unit, 1);  // gcd 2 is neither
  EXPECT_EQ(comm_sets(dim(100, 2, 2), dim(100, 6, 3)).gcd_unit, 2);
}

TEST(RedistCommSets, GcdReductionWithStridedUnitsAndAPartialLastUnit) {
  // cyclic(3) on 2 -> cyclic(6) on 3, N = 29: units of 3, the last one holds 2 indices.
  // Source 0 holds units 0, 2, 4, ... (indices 0-2, 6-8, ...); target 1 holds indices 6-11
  // and 24-28.
  const DimCommSets sets = comm_sets(dim(29, 3, 2), dim(29, 6, 3), CommSetOptions{true, false});
  EXPECT_EQ(sets.gcd_unit, 3);
  EXPECT_THAT(elements_of(sets.between(0, 1)), ElementsAre(6, 7, 8, 24, 25, 26));
  EXPECT_THAT(elements_of(sets.between(1, 1)), ElementsAre(9, 10, 11, 27, 28));
}

TEST(RedistCommSets, PeriodReductionOnThePapersExampleDoubled) {
  // Sec. 2.2: m1 = 2, m2 = 3, p1 = p2 = 2. The period is lcm(4, 6) = 12 (the paper's 6 is a
  // typo), so N = 24 holds two periods. Source 0 holds {0,1,4,5,8,9,...}, target 0 holds
  // {0,1,2,6,7,8,...}.
  const DimCommSets sets = comm_sets(dim(24, 2, 2), dim(24, 3, 2), CommSetOptions{false, true});
  EXPECT_EQ(sets.period, 12);
  EXPECT_THAT(elements_of(sets.between(0, 0)), ElementsAre(0, 1, 8, 12, 13, 20));
  EXPECT_THAT(elements_of(sets.between(0, 1)), ElementsAre(4, 5, 9, 16, 17, 21));
  EXPECT_THAT(elements_of(sets.between(1, 0)), ElementsAre(2, 6, 7, 14, 18, 19));
  EXPECT_THAT(elements_of(sets.between(1, 1)), ElementsAre(3, 10, 11, 15, 22, 23));
  // The receive set of target 0 and the send set of source 0 (the paper's C_r and C_s).
  EXPECT_EQ(receive_set(sets, 0).size(), sets.between(0, 0).size() + sets.between(1, 0).size());
  for (const OwnedTriplet& t : send_set(sets, 0))
    for (std::int64_t i : elements_of(t.indices)) EXPECT_LT(i % 4, 2) << i;  // source 0's
  // One period only: no reduction when it does not save anything.
  EXPECT_EQ(comm_sets(dim(12, 2, 2), dim(12, 3, 2)).period, 0);
}

TEST(RedistCommSets, PeriodReductionCutsThePapersWorkByFive) {
  // Sec. 2.3: 1000 elements, 4 processors, cyclic -> cyclic(50): 4 x 20 triplet pairs
  // without the reduction, 4 x 4 on one period of 200.
  const CommSetOptions paper_loop{false, false, true};
  const CommSetOptions reduced{false, true, true};
  const DimCommSets full = comm_sets(dim(1000, 1, 4), dim(1000, 50, 4), paper_loop);
  const DimCommSets period = comm_sets(dim(1000, 1, 4), dim(1000, 50, 4), reduced);
  EXPECT_EQ(full.intersections, 80);
  EXPECT_EQ(period.intersections, 16);
  EXPECT_EQ(period.period, 200);
  for (int from = 0; from < 4; ++from)
    for (int to = 0; to < 4; ++to)
      EXPECT_EQ(elements_of(full.between(from, to)), elements_of(period.between(from, to)));
}

TEST(RedistCommSets, CyclicToCyclicStaysOneTripletPerPair) {
  // cyclic on 3 -> cyclic on 4: each pair shares one residue class mod 12. Expanding the
  // period copy by copy would give 84 single indices; they are one progression.
  for (const CommSetOptions& options : {CommSetOptions{}, kNoReductions}) {
    const DimCommSets sets = comm_sets(dim(1000, 1, 3), dim(1000, 1, 4), options);
    for (int from = 0; from < 3; ++from) {
      for (int to = 0; to < 4; ++to) {
        ASSERT_EQ(sets.between(from, to).size(), 1u);
        EXPECT_EQ(sets.between(from, to)[0].stride, 12);
      }
    }
  }
}

TEST(RedistCommSets, UnitsExpandToRunsOfTheUnit) {
  // cyclic(50) on 2 -> cyclic(25) on 4: units of 25 (cyclic(2) -> cyclic on 4), period 4
  // units. Source 0 sends 0-24, 100-124, ... to target 0 and 25-49, 125-149, ... to target 1.
  const DimCommSets sets = comm_sets(dim(1000, 50, 2), dim(1000, 25, 4));
  EXPECT_EQ(sets.gcd_unit, 25);
  EXPECT_EQ(sets.period, 4);
  for (int to = 0; to < 2; ++to) {
    std::vector<Triplet> expected;
    for (std::int64_t k = 0; k < 10; ++k)
      expected.push_back({100 * k + 25 * to, 100 * k + 25 * to + 24, 1});
    EXPECT_EQ(sets.between(0, to), expected);
  }
  EXPECT_TRUE(sets.between(0, 2).empty());
  EXPECT_TRUE(sets.between(1, 1).empty());
}

TEST(RedistCommSets, ExtentsMustAgree) {
  EXPECT_THAT([] { comm_sets(dim(10, 1, 2), dim(11, 1, 2)); },
              ThrowsMessage<Error>(HasSubstr("the source dimension has 10 indices")));
}

}  // namespace
}  // namespace choreo::redist
