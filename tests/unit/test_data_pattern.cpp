// The message byte pattern: deterministic, different for different messages, and the
// check finds every corrupted byte.
#include <gtest/gtest.h>

#include <vector>

#include "choreo/core/data_pattern.hpp"

namespace choreo {
namespace {

std::vector<std::byte> message(int src, int dst, int tag, std::size_t n) {
  std::vector<std::byte> out(n);
  fill_message(out, src, dst, tag);
  return out;
}

TEST(DataPattern, FillAgreesWithBytewiseDefinition) {
  auto m = message(3, 7, 11, 37);
  for (std::size_t i = 0; i < m.size(); ++i)
    EXPECT_EQ(static_cast<std::uint8_t>(m[i]),
              message_byte(3, 7, 11, static_cast<std::int64_t>(i)));
  EXPECT_EQ(check_message(m, 3, 7, 11).count, 0);
}

TEST(DataPattern, OtherMessagesDoNotPassTheCheck) {
  auto m = message(0, 1, 0, 256);
  EXPECT_GT(check_message(m, 1, 0, 0).count, 200);  // swapped source and destination
  EXPECT_GT(check_message(m, 0, 1, 1).count, 200);  // other tag
  EXPECT_GT(check_message(m, 0, 2, 0).count, 200);  // other destination
  // A shifted copy of the right message fails too.
  std::vector<std::byte> shifted(m.begin() + 1, m.end());
  EXPECT_GT(check_message(shifted, 0, 1, 0).count, 200);
}

TEST(DataPattern, PoisonDiffersEverywhereAndCheckReportsTheFirstBadByte) {
  std::vector<std::byte> buf(100);
  poison_message(buf, 2, 4, 6);
  EXPECT_EQ(check_message(buf, 2, 4, 6).count, 100);
  fill_message(buf, 2, 4, 6);
  buf[41] ^= std::byte{0x10};
  buf[77] ^= std::byte{0x01};
  auto bad = check_message(buf, 2, 4, 6);
  EXPECT_EQ(bad.count, 2);
  EXPECT_EQ(bad.first, 41);
  EXPECT_EQ(bad.expected, message_byte(2, 4, 6, 41));
  EXPECT_EQ(bad.got, static_cast<std::uint8_t>(bad.expected ^ 0x10));
}

}  // namespace
}  // namespace choreo
