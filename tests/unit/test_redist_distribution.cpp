// Distributions: HPF semantics per dimension, grid positions to ranks, the text form and
// every error it reports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "choreo/core/error.hpp"
#include "choreo/redist/distribution.hpp"

namespace choreo::redist {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(RedistDistribution, BlockIsCyclicOfTheCeilingAndCyclicIsCyclicOne) {
  const ArrayDistribution d = parse_distribution("block,cyclic,cyclic(3)@4x2x2", {10, 7, 9});
  const BlockCyclicDim block = resolve_dim(d, 0), cyclic = resolve_dim(d, 1),
                       cyclic3 = resolve_dim(d, 2);
  EXPECT_EQ(block.block, 3);  // ceil(10 / 4)
  EXPECT_EQ(block.procs, 4);
  EXPECT_EQ(cyclic.block, 1);
  EXPECT_EQ(cyclic3.block, 3);
  // block: 0-2 on 0, 3-5 on 1, 6-8 on 2, 9 on 3.
  EXPECT_EQ(block.owner(9), 3);
  EXPECT_EQ(block.local_index(9), 0);
  EXPECT_EQ(block.local_extent(3), 1);
  // cyclic(3) on 2: 0-2 on 0, 3-5 on 1, 6-8 on 0 at local 3-5.
  EXPECT_EQ(cyclic3.owner(7), 0);
  EXPECT_EQ(cyclic3.local_index(7), 4);
  EXPECT_EQ(cyclic3.local_extent(0), 6);
  EXPECT_EQ(cyclic3.local_extent(1), 3);
}

TEST(RedistDistribution, CollapsedDimensionsTakeNoGridDimension) {
  const ArrayDistribution d = parse_distribution("*,cyclic(50)@4", {2000, 2000});
  EXPECT_THAT(d.grid, ElementsAre(4));
  const BlockCyclicDim rows = resolve_dim(d, 0);
  EXPECT_EQ(rows.procs, 1);
  EXPECT_EQ(rows.local_extent(0), 2000);
  EXPECT_THAT(proc_coords(d, 3), ElementsAre(0, 3));
  EXPECT_THAT(local_extents(d, 3), ElementsAre(2000, 500));
}

TEST(RedistDistribution, GridPositionsAreColumnMajorByDefaultAsInThePaper) {
  // Paper 002, sec. 3.2: on a 2x2 grid numbered first index fastest, processor (0, 1) is
  // real processor 2 and (1, 1) is 3.
  const ArrayDistribution d = parse_distribution("cyclic,cyclic@2x2", {16, 16});
  EXPECT_THAT(proc_coords(d, 2), ElementsAre(0, 1));
  EXPECT_THAT(proc_coords(d, 3), ElementsAre(1, 1));
  EXPECT_EQ(rank_at(d, 2), 2);
  const ArrayDistribution row = parse_distribution("cyclic,cyclic@2x3:row", {16, 16});
  EXPECT_THAT(proc_coords(row, 1), ElementsAre(0, 1));  // last index fastest
  EXPECT_THAT(proc_coords(row, 3), ElementsAre(1, 0));
}

TEST(RedistDistribution, RanksComeFromAFirstRankOrAList) {
  const ArrayDistribution first = parse_distribution("block@3:first=4", {10});
  EXPECT_EQ(rank_at(first, 0), 4);
  EXPECT_EQ(rank_at(first, 2), 6);
  const ArrayDistribution listed = parse_distribution("block@3:ranks=5,0,2", {10}, 6);
  EXPECT_EQ(rank_at(listed, 0), 5);
  EXPECT_EQ(rank_at(listed, 2), 2);
  EXPECT_EQ(grid_size(listed), 3);
}

TEST(RedistDistribution, SourceOffsetsShiftTheFirstBlock) {
  const ArrayDistribution d = parse_distribution("cyclic(2),cyclic@3x2:src=2x1", {10, 5});
  const BlockCyclicDim rows = resolve_dim(d, 0);
  EXPECT_EQ(rows.owner(0), 2);
  EXPECT_EQ(rows.owner(2), 0);
  EXPECT_EQ(rows.local_index(2), 0);
  EXPECT_EQ(resolve_dim(d, 1).owner(0), 1);
}

TEST(RedistDistribution, LocalStridesFollowTheLeadingDimension) {
  ArrayDistribution d = parse_distribution("block,block,cyclic@2x1x1", {5, 3, 4});
  EXPECT_THAT(local_strides(d, 0), ElementsAre(1, 3, 9));  // 3 local rows on position 0
  EXPECT_THAT(local_strides(d, 1), ElementsAre(1, 2, 6));
  d.layout.leading_dim = 8;
  EXPECT_THAT(local_strides(d, 1), ElementsAre(1, 8, 24));
}

TEST(RedistDistribution, TextRoundTrips) {
  const std::vector<std::int64_t> matrix = {20, 30}, vector = {20};
  for (const auto& [text, shape] : std::vector<std::pair<const char*, std::vector<std::int64_t>>>{
           {"cyclic,cyclic@2x2", matrix},
           {"cyclic(50),block@2x3:row", matrix},
           {"*,cyclic(50)@4", matrix},
           {"block,cyclic@2x2:ranks=3,1,0,2", matrix},
           {"cyclic(2),cyclic@3x2:src=2x1", matrix},
           {"*,*", matrix},
           {"block@3:first=4", vector},
           {"*@1:first=2", vector}}) {
    EXPECT_EQ(to_string(parse_distribution(text, shape)), text);
  }
}

TEST(RedistDistribution, ParsesShapes) {
  EXPECT_THAT(parse_shape("2000x2000"), ElementsAre(2000, 2000));
  EXPECT_THAT(parse_shape("7"), ElementsAre(7));
  EXPECT_THAT([] { parse_shape("20x-1"); },
              ThrowsMessage<Error>(HasSubstr("'-1' is not an extent")));
  EXPECT_THROW(parse_shape("20xx3"), Error);
  EXPECT_THROW(parse_shape(""), Error);
}

// Every message names the problem and says what to write instead.
TEST(RedistDistribution, ParserErrorsNameTheProblemAndTheFix) {
  struct Case {
    const char* text;
    std::vector<std::int64_t> shape;
    std::optional<int> comm_size;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"cyclic(0),block@2x2", {8, 8}, {}, "block size must be at least 1"},
      {"cyclic(-3)@2", {8}, {}, "block size must be at least 1"},
      {"cyclic(x)@2", {8}, {}, "must be a whole number"},
      {"blok,cyclic@2x2", {8, 8}, {}, "unknown distribution 'blok'"},
      {"cyclic,,block@2x2", {8, 8, 8}, {}, "dimension 1 has no distribution"},
      {"cyclic,cyclic@4", {8, 8}, {}, "give one grid extent per distributed"},
      {"*,cyclic@2x2", {8, 8}, {}, "1 distributed dimension(s) but a 2-dimensional"},
      {"cyclic,cyclic@2x2", {8, 8, 8}, {}, "2 distributions for an array of 3 dimensions"},
      {"cyclic,cyclic", {8, 8}, {}, "no processor grid"},
      {"cyclic@0", {8}, {}, "grid extents must be at least 1"},
      {"cyclic@2xa", {8}, {}, "'a' is not a whole number"},
      {"cyclic,cyclic@2x3", {8, 8}, 4, "the communicator has 4 ranks"},
      {"cyclic@2:first=3", {8}, 4, "needs rank 4 but the communicator has 4"},
      {"cyclic@2:ranks=0,9", {8}, 4, "needs rank 9"},
      {"cyclic@2:ranks=1,1", {8}, {}, "rank 1 appears twice"},
      {"cyclic@2:ranks=0,1,2", {8}, {}, "the rank list has 3 ranks but grid 2 has 2"},
      {"cyclic@2:ranks=0,-1", {8}, {}, "is negative"},
      {"cyclic@2:ranks=0,z", {8}, {}, "'z' is not a rank"},
      {"cyclic@2:first=-1", {8}, {}, "first rank -1 is negative"},
      {"cyclic@2:first=q", {8}, {}, "first rank must be a whole number"},
      {"cyclic@2:src=2", {8}, {}, "starts at grid coordinate 2"},
      {"cyclic@2:src=1x0", {8}, {}, "gives 2 grid coordinates for a 1-dimensional grid"},
      {"cyclic@2:diagonal", {8}, {}, "unknown grid option 'diagonal'"},
      {"cyclic@2", {}, {}, "1 distributions for an array of 0 dimensions"},
      {"cyclic@2", {-4}, {}, "extents must be 0 or more"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_THAT([&] { parse_distribution(c.text, c.shape, c.comm_size); },
                ThrowsMessage<Error>(
                    AllOf(HasSubstr(c.message), HasSubstr(std::string("'") + c.text + "'"))));
  }
}

TEST(RedistDistribution, ValidateCatchesWhatTheTextCannotSay) {
  ArrayDistribution d = parse_distribution("block,block@2x2", {5, 4});
  d.layout.leading_dim = 2;
  EXPECT_THAT([&] { validate(d); },
              ThrowsMessage<Error>(HasSubstr("leading dimension 2 is smaller than the 3 local")));
  d.layout.leading_dim = -1;
  EXPECT_THAT([&] { validate(d); }, ThrowsMessage<Error>(HasSubstr("is negative")));
  d.layout.leading_dim = 3;
  EXPECT_NO_THROW(validate(d));
  d.shape.clear();
  d.dims.clear();
  EXPECT_THAT([&] { validate(d); }, ThrowsMessage<Error>(HasSubstr("no dimensions")));
  ArrayDistribution huge = parse_distribution("block,block@2x2", {5, 4});
  huge.grid = {65536, 65536};
  EXPECT_THAT([&] { validate(huge); }, ThrowsMessage<Error>(HasSubstr("use a smaller grid")));
  ArrayDistribution late = parse_distribution("block@2", {5});
  late.first_rank = 2147483647;
  EXPECT_THAT([&] { validate(late); }, ThrowsMessage<Error>(HasSubstr("passes the largest")));
}

}  // namespace
}  // namespace choreo::redist
