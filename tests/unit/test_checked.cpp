// Checked arithmetic (choreo/core/checked.hpp) and choreo's limits (choreo/core/limits.hpp),
// compared with 128-bit arithmetic: an overflow is an Error naming the quantity, never a wrapped
// value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "choreo/core/checked.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/limits.hpp"
#include "error_of.hpp"

namespace choreo {
namespace {

using test::error_of;
using ::testing::HasSubstr;
__extension__ typedef __int128 Wide;  // GCC and Clang: 128-bit integers, the reference

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

bool fits(Wide value) { return value >= kMin && value <= kMax; }

/// Values near every edge, and random ones of every magnitude.
std::vector<std::int64_t> samples() {
  std::vector<std::int64_t> out = {0,
                                   1,
                                   -1,
                                   2,
                                   -2,
                                   kMax,
                                   kMin,
                                   kMax - 1,
                                   kMin + 1,
                                   std::int64_t{1} << 31,
                                   std::int64_t{1} << 32,
                                   3037000499,
                                   3037000500,
                                   -3037000500,
                                   std::int64_t{1} << 62};
  std::mt19937_64 rng(20);
  for (int i = 0; i < 200; ++i) {
    const int bits = static_cast<int>(rng() % 63);
    auto value = static_cast<std::int64_t>(rng() >> (63 - bits) >> 1);
    out.push_back(rng() % 2 ? value : -value);
  }
  return out;
}

TEST(Checked, AddSubMulMatch128BitArithmetic) {
  const auto values = samples();
  int overflows = 0;
  for (std::int64_t a : values) {
    for (std::int64_t b : values) {
      const Wide sum = Wide{a} + b, difference = Wide{a} - b, product = Wide{a} * b;
      const Wide expected[] = {sum, difference, product};
      const std::function<std::int64_t()> results[] = {[&] { return checked_add(a, b, "x"); },
                                                       [&] { return checked_sub(a, b, "x"); },
                                                       [&] { return checked_mul(a, b, "x"); }};
      int k = 0;
      for (const auto& result : results) {
        const Wide want = expected[k++];
        if (fits(want)) {
          EXPECT_EQ(result(), want) << a << " " << b;
        } else {
          EXPECT_THROW(result(), Error) << a << " " << b;
          ++overflows;
        }
      }
    }
  }
  EXPECT_GT(overflows, 1000);  // the samples do reach the edges
}

TEST(Checked, TheMessageNamesTheQuantityAndTheOperands) {
  EXPECT_THAT(error_of([] { checked_add(kMax, std::int64_t{1}, "a makespan (ns)"); }),
              HasSubstr("a makespan (ns): 9223372036854775807 + 1 does not fit 64-bit integers"));
  EXPECT_THAT(error_of([] { checked_mul(3037000500, 3037000500, "the array's elements"); }),
              HasSubstr("the array's elements: 3037000500 x 3037000500 does not fit"));
}

TEST(Checked, CastAndRound) {
  EXPECT_EQ(checked_cast<int>(std::int64_t{2147483647}, "x"), 2147483647);
  EXPECT_THROW(checked_cast<int>(std::int64_t{2147483648}, "x"), Error);
  EXPECT_THROW(checked_cast<std::uint32_t>(-1, "x"), Error);
  EXPECT_EQ(checked_llround(2.5, "x"), 3);
  EXPECT_EQ(checked_llround(-9.2e18, "x"), -9200000000000000000);
  EXPECT_THROW(checked_llround(9223372036854775808.0, "x"), Error);
  EXPECT_THROW(checked_llround(std::numeric_limits<double>::infinity(), "x"), Error);
  EXPECT_THROW(checked_llround(std::numeric_limits<double>::quiet_NaN(), "x"), Error);
}

TEST(Limits, EachBoundIsInclusive) {
  EXPECT_EQ(limits::check_ranks(limits::kMaxRanks, "r"), 1 << 24);
  EXPECT_THROW(limits::check_ranks(limits::kMaxRanks + 1, "r"), Error);
  EXPECT_THROW(limits::check_ranks(0, "r"), Error);
  EXPECT_EQ(limits::check_bytes(limits::kMaxBytes, "b"), limits::kMaxBytes);
  EXPECT_THROW(limits::check_bytes(limits::kMaxBytes + 1, "b"), Error);
  EXPECT_THROW(limits::check_bytes(-1, "b"), Error);
  EXPECT_EQ(limits::check_nanoseconds(limits::kMaxNanoseconds, "t"), limits::kMaxNanoseconds);
  EXPECT_THROW(limits::check_nanoseconds(limits::kMaxNanoseconds + 1, "t"), Error);
  EXPECT_THAT(error_of([] { limits::check_ranks(2147483647, "top level: \"ranks\""); }),
              HasSubstr("top level: \"ranks\" = 2147483647 is out of range: choreo takes 1 to "
                        "2^24 = 16777216 ranks (docs/formats.md, Limits)"));
}

// The limits keep the sums choreo forms exact: a thousand of the largest times or sizes add up
// without overflow, and a time in seconds read back as a double is the same nanosecond.
TEST(Limits, SumsOfLimitedValuesFitAndSecondsRoundTrip) {
  Wide bytes = 0;
  for (int i = 0; i < 8191; ++i) bytes += limits::kMaxBytes;  // 2^13 - 1 of the largest
  EXPECT_TRUE(fits(bytes));
  EXPECT_FALSE(fits(bytes + limits::kMaxBytes));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const auto ns = static_cast<std::int64_t>(rng() % (limits::kMaxNanoseconds + 1));
    const double seconds = static_cast<double>(ns) / 1e9;
    ASSERT_EQ(std::llround(seconds * 1e9), ns);
  }
}

TEST(Limits, ArrayElements) {
  const std::vector<std::int64_t> fine = {1 << 25, 1 << 25};
  EXPECT_EQ(limits::check_elements(fine, "a"), std::int64_t{1} << 50);
  const std::vector<std::int64_t> empty = {0, kMax};
  EXPECT_EQ(limits::check_elements(empty, "a"), 0);
  const std::vector<std::int64_t> wraps = {3037000500, 3037000500};  // 2^63 + 1.5e9
  EXPECT_THAT(error_of([&] { limits::check_elements(wraps, "the array"); }),
              HasSubstr("the array: 9.22e+18 elements, more than choreo takes (2^50"));
  const std::vector<std::int64_t> just_over = {(1 << 25) + 1, 1 << 25};
  EXPECT_THROW(limits::check_elements(just_over, "a"), Error);
}

TEST(Limits, AllocationBeyondThisMachinesMemory) {
  EXPECT_NO_THROW(limits::check_allocation(1 << 20, "a megabyte"));
  EXPECT_THAT(error_of([] { limits::check_allocation(limits::kMaxBytes, "rank 0: buffers"); }),
              HasSubstr("rank 0: buffers: 1024.0 TiB (1125899906842624 B), more than this "
                        "machine's"));
}

}  // namespace
}  // namespace choreo
