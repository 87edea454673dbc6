// Plans on hand-worked examples: the paper's 16x16 (block, block) -> (cyclic, cyclic(4)) with
// both local forms, local copies, disjoint rank sets, section order and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "choreo/core/error.hpp"
#include "choreo/redist/plan.hpp"

namespace choreo::redist {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const Transfer& find(const Plan& plan, int source, int target) {
  for (const Transfer& t : plan.transfers)
    if (t.source_rank == source && t.target_rank == target) return t;
  throw std::runtime_error("no such transfer");
}

TEST(RedistPlan, ThePapersExampleWithBothLocalForms) {
  // Sec. 2.1: A(16,16) (block, block) on 2x2 -> (cyclic, cyclic(4)) on 2x2, positions
  // numbered first index fastest. Rank 0 holds rows 0-7, columns 0-7; rank 2 is target
  // processor (0, 1): even rows, columns 4-7 and 12-15.
  const Plan plan = make_plan(parse_distribution("block,block@2x2", {16, 16}),
                              parse_distribution("cyclic,cyclic(4)@2x2", {16, 16}));
  const Transfer& t = find(plan, 0, 2);
  EXPECT_FALSE(t.local_copy());
  EXPECT_EQ(t.elements, 16);
  ASSERT_EQ(t.dims.size(), 2u);
  EXPECT_THAT(t.dims[0].global, ElementsAre(Triplet{0, 6, 2}));
  EXPECT_THAT(t.dims[1].global, ElementsAre(Triplet{4, 7, 1}));
  // Source: 8x8 local rows and columns; rows at local 0, 2, 4, 6; columns 4-7 at 8 apart.
  EXPECT_THAT(t.dims[0].source_local, ElementsAre(LocalTriplet{0, 2, 4}));
  EXPECT_THAT(t.dims[1].source_local, ElementsAre(LocalTriplet{32, 8, 4}));
  // Target: rows 0-3 of its 8; columns 4-7 are its local columns 0-3.
  EXPECT_THAT(t.dims[0].target_local, ElementsAre(LocalTriplet{0, 1, 4}));
  EXPECT_THAT(t.dims[1].target_local, ElementsAre(LocalTriplet{0, 8, 4}));

  const Transfer& copy = find(plan, 0, 0);
  EXPECT_TRUE(copy.local_copy());
  EXPECT_THAT(copy.dims[1].global, ElementsAre(Triplet{0, 3, 1}));

  const PlanTotals totals = plan.totals();
  EXPECT_EQ(totals.messages + totals.local_copies, 16);  // every pair shares elements
  EXPECT_EQ(totals.local_copies, 4);
  EXPECT_EQ(totals.message_elements + totals.copy_elements, 256);
  EXPECT_EQ(plan.sends_of(1).size(), 4u);
  EXPECT_EQ(plan.receives_of(3).size(), 4u);
}

TEST(RedistPlan, SectionsAreTheProductWithTheFirstDimensionFastest) {
  // Rank 0 holds all of an 8x8 array and keeps, of (cyclic(2), cyclic(2)) on 2x2, rows 0-1
  // and 4-5 of columns 0-1 and 4-5: four sections.
  const Plan plan = make_plan(parse_distribution("*,*", {8, 8}),
                              parse_distribution("cyclic(2),cyclic(2)@2x2", {8, 8}));
  const Transfer& t = find(plan, 0, 0);
  EXPECT_EQ(t.section_count(), 4);
  const std::vector<Section> s = sections(t);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_THAT(s[0].global, ElementsAre(Triplet{0, 1, 1}, Triplet{0, 1, 1}));
  EXPECT_THAT(s[1].global, ElementsAre(Triplet{4, 5, 1}, Triplet{0, 1, 1}));
  EXPECT_THAT(s[2].global, ElementsAre(Triplet{0, 1, 1}, Triplet{4, 5, 1}));
  // Target rank 0 holds rows 0-1, 4-5 at local rows 0-3; row 4 is local row 2.
  EXPECT_THAT(s[1].target_local[0], (LocalTriplet{2, 1, 2}));
}

TEST(RedistPlan, DisjointRankSetsHaveNoLocalCopies) {
  const Plan plan =
      make_plan(parse_distribution("block@2", {10}), parse_distribution("block@3:first=2", {10}));
  EXPECT_EQ(plan.totals().local_copies, 0);
  EXPECT_EQ(plan.totals().message_elements, 10);
  // 0-4 on rank 0, 5-9 on rank 1 -> 0-3 on rank 2, 4-7 on rank 3, 8-9 on rank 4.
  EXPECT_THAT(find(plan, 0, 3).dims[0].global, ElementsAre(Triplet{4, 4, 1}));
  EXPECT_THAT(find(plan, 1, 4).dims[0].global, ElementsAre(Triplet{8, 9, 1}));
  EXPECT_TRUE(plan.sends_of(2).empty());
  EXPECT_TRUE(plan.receives_of(0).empty());
}

TEST(RedistPlan, RejectsDifferentShapesAndInvalidDistributions) {
  EXPECT_THAT(
      [] { make_plan(parse_distribution("block@2", {10}), parse_distribution("block@2", {11})); },
      ThrowsMessage<Error>(HasSubstr("shape 10 and the target 11")));
  ArrayDistribution bad = parse_distribution("block@2", {10});
  bad.grid = {2, 2};
  EXPECT_THAT([&] { make_plan(bad, parse_distribution("block@2", {10})); },
              ThrowsMessage<Error>(HasSubstr("give one grid extent per distributed")));
}

}  // namespace
}  // namespace choreo::redist
