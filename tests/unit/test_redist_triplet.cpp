// Triplets: canonical form, closed-form intersection against brute force (small and near
// 2^62, where the lcm of the strides passes 64 bits), clipping and compaction.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "choreo/core/error.hpp"
#include "choreo/redist/triplet.hpp"
#include "redist_reference.hpp"

namespace choreo::redist {
namespace {

using testing::canonical;
using testing::elements_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Rng;

// The common elements, found by walking a and testing membership in b.
std::vector<std::int64_t> brute_force_common(const Triplet& a, const Triplet& b) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = a.lower; i <= a.upper; i += a.stride)
    if (i >= b.lower && i <= b.upper && (i - b.lower) % b.stride == 0) out.push_back(i);
  return out;
}

TEST(RedistTriplet, MakeTripletLowersTheUpperBoundToTheLastElement) {
  EXPECT_EQ(make_triplet(1, 10, 4), (Triplet{1, 9, 4}));
  EXPECT_EQ(make_triplet(3, 3, 7), (Triplet{3, 3, 1}));
  EXPECT_EQ(make_triplet(3, 5, 7), (Triplet{3, 3, 1}));
  EXPECT_EQ(make_triplet(5, 4, 2), Triplet{});
  EXPECT_EQ(make_triplet(0, 14, 2).count(), 8);
  EXPECT_EQ(Triplet{}.count(), 0);
  EXPECT_EQ(to_string(make_triplet(1, 15, 2)), "[1:15:2]");
}

TEST(RedistTriplet, MakeTripletRejectsAStrideBelowOne) {
  EXPECT_THAT([] { make_triplet(0, 4, 0); },
              ::testing::ThrowsMessage<Error>(HasSubstr("strides must be at least 1")));
  EXPECT_THROW(make_triplet(0, 4, -2), Error);
}

TEST(RedistTriplet, IntersectionMatchesBruteForceOnRandomTriplets) {
  Rng rng(20240601);
  int non_empty = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const Triplet a = make_triplet(rng.in(0, 60), rng.in(-5, 200), rng.in(1, 15));
    const Triplet b = make_triplet(rng.in(0, 60), rng.in(-5, 200), rng.in(1, 15));
    const Triplet common = intersect(a, b);
    const std::vector<std::int64_t> expected = brute_force_common(a, b);
    ASSERT_EQ(elements_of(common), expected) << to_string(a) << " & " << to_string(b);
    if (!expected.empty()) {
      ASSERT_TRUE(canonical(common)) << to_string(common);
      ++non_empty;
    } else {
      ASSERT_EQ(common, Triplet{});
    }
  }
  EXPECT_GT(non_empty, 5000);  // the trials must exercise the non-empty case
}

TEST(RedistTriplet, IntersectionIsExactForHugeIndicesAndStrides) {
  // Strides near 2^31 with an lcm near 2^62 and indices near 2^62: the CRT step multiplies
  // numbers whose product passes 64 bits.
  Rng rng(7);
  const std::int64_t base = std::int64_t{1} << 61;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::int64_t s1 = rng.in(std::int64_t{1} << 30, std::int64_t{1} << 31);
    const std::int64_t s2 = rng.in(std::int64_t{1} << 30, std::int64_t{1} << 31);
    const Triplet a = make_triplet(base + rng.in(0, s1), base + s1 * 1000, s1);
    const Triplet b = make_triplet(base + rng.in(0, s2), base + s2 * 1000, s2);
    ASSERT_EQ(elements_of(intersect(a, b)), brute_force_common(a, b))
        << to_string(a) << " & " << to_string(b);
  }
  // A guaranteed common element: 2^61 + s1 * s2 with coprime strides.
  const Triplet a{base, base + 3 * 2147483647LL, 2147483647LL};
  const Triplet b{base, base + 2 * 2147483629LL * 2, 2147483629LL};
  EXPECT_EQ(intersect(a, b), (Triplet{base, base, 1}));
}

TEST(RedistTriplet, EmptyAndDisjointIntersections) {
  EXPECT_EQ(intersect(Triplet{}, make_triplet(0, 9, 1)), Triplet{});
  EXPECT_EQ(intersect(make_triplet(0, 14, 2), make_triplet(1, 15, 2)), Triplet{});
  EXPECT_EQ(intersect(make_triplet(0, 7, 1), make_triplet(8, 15, 1)), Triplet{});
  EXPECT_EQ(intersect(make_triplet(0, 99, 4), make_triplet(2, 99, 6)), (Triplet{8, 92, 12}));
}

TEST(RedistTriplet, ClipKeepsTheElementsInTheRange) {
  EXPECT_EQ(clip(make_triplet(1, 41, 4), 6, 30), (Triplet{9, 29, 4}));
  EXPECT_EQ(clip(make_triplet(1, 41, 4), 42, 50), Triplet{});
  EXPECT_EQ(clip(make_triplet(1, 41, 4), 0, 1), (Triplet{1, 1, 1}));
}

TEST(RedistTriplet, CompactMergesProgressionsAndKeepsTheElements) {
  std::vector<Triplet> ts = {
      make_triplet(6, 8, 2),   make_triplet(0, 4, 2),   Triplet{},
      make_triplet(20, 20, 1), make_triplet(30, 30, 1), make_triplet(40, 41, 1)};
  compact(ts);
  EXPECT_THAT(ts, ElementsAre(Triplet{0, 8, 2}, Triplet{20, 30, 10}, Triplet{40, 41, 1}));

  // A single element merges into a following progression that continues it.
  std::vector<Triplet> lead = {make_triplet(5, 20, 5), make_triplet(0, 0, 1)};
  compact(lead);
  EXPECT_THAT(lead, ElementsAre(Triplet{0, 20, 5}));

  // Interleaved progressions stay apart.
  std::vector<Triplet> interleaved = {make_triplet(2, 98, 4), make_triplet(0, 96, 4)};
  compact(interleaved);
  EXPECT_THAT(interleaved, ElementsAre(Triplet{0, 96, 4}, Triplet{2, 98, 4}));
}

TEST(RedistTriplet, CompactKeepsRandomDisjointSetsIntact) {
  Rng rng(99);
  for (int trial = 0; trial < 2000; ++trial) {
    // Random disjoint pieces: runs, strided runs and single elements of [0, 300).
    std::vector<Triplet> pieces;
    std::set<std::int64_t> used;
    for (int k = rng.pick(0, 8); k > 0; --k) {
      const Triplet t = make_triplet(rng.in(0, 299), rng.in(0, 299), rng.in(1, 6));
      const std::vector<std::int64_t> els = elements_of(t);
      if (std::any_of(els.begin(), els.end(), [&](std::int64_t i) { return used.count(i); }))
        continue;
      used.insert(els.begin(), els.end());
      pieces.push_back(t);
    }
    std::vector<Triplet> compacted = pieces;
    compact(compacted);
    ASSERT_EQ(elements_of(compacted), elements_of(pieces));
    ASSERT_LE(compacted.size(), pieces.size());
    for (std::size_t i = 0; i < compacted.size(); ++i) {
      ASSERT_TRUE(canonical(compacted[i]));
      if (i > 0) {
        ASSERT_LT(compacted[i - 1].lower, compacted[i].lower);
      }
    }
  }
}

}  // namespace
}  // namespace choreo::redist
