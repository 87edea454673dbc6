// Pattern generators against closed forms, and the direct scheduler's output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "choreo/core/error.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sched/schedulers.hpp"
#include "pattern_pairs.hpp"

namespace choreo {
namespace {

using test::Pair;
using test::pairs;

TEST(Patterns, CountsMatchClosedForms) {
  for (int n : {1, 2, 5, 16}) {
    EXPECT_EQ(patterns::alltoall(n, 4).messages.size(), static_cast<std::size_t>(n * (n - 1)));
    EXPECT_EQ(patterns::gather(n, 4).messages.size(), static_cast<std::size_t>(n - 1));
    EXPECT_EQ(patterns::scatter(n, 4).messages.size(), static_cast<std::size_t>(n - 1));
    EXPECT_EQ(patterns::triangle(n, 4).messages.size(), static_cast<std::size_t>(n * (n - 1) / 2));
  }
}

TEST(Patterns, WhoSendsToWhom) {
  EXPECT_EQ(pairs(patterns::gather(4, 1, 2)), (std::set<Pair>{{0, 2}, {1, 2}, {3, 2}}));
  EXPECT_EQ(pairs(patterns::scatter(3, 1, 1)), (std::set<Pair>{{1, 0}, {1, 2}}));
  EXPECT_EQ(pairs(patterns::triangle(3, 1)), (std::set<Pair>{{1, 0}, {2, 0}, {2, 1}}));
  for (const auto& m : patterns::alltoall(4, 9).messages) EXPECT_EQ(m.bytes, 9);
}

TEST(Patterns, BadArgumentsAreErrors) {
  EXPECT_THROW(patterns::alltoall(0, 1), Error);
  EXPECT_THROW(patterns::gather(4, -1), Error);
  EXPECT_THROW(patterns::scatter(4, 1, 4), Error);
}

TEST(DirectSchedule, CarriesEveryMessageExactlyOnceAndValidates) {
  for (int n : {1, 2, 3, 7}) {
    for (const Pattern& p :
         {patterns::alltoall(n, 100), patterns::gather(n, 5, n - 1), patterns::triangle(n, 3)}) {
      Schedule s = schedule_direct(p);
      EXPECT_EQ(s.algorithm, "direct");
      EXPECT_NO_THROW(validate(s));
      std::multiset<std::tuple<int, int, std::int64_t>> sent, expected;
      for (int r = 0; r < s.ranks; ++r)
        for (const Op& op : s.programs[r].ops)
          if (op.kind == OpKind::Send) sent.insert({r, op.peer, op.bytes});
      for (const auto& m : p.messages) expected.insert({m.src, m.dst, m.bytes});
      EXPECT_EQ(sent, expected);
    }
  }
}

TEST(DirectSchedule, RankSendsToItsSuccessorsFirst) {
  Schedule s = schedule_direct(patterns::alltoall(4, 1));
  std::vector<int> order;
  for (const Op& op : s.programs[2].ops)
    if (op.kind == OpKind::Send) order.push_back(op.peer);
  EXPECT_EQ(order, (std::vector<int>{3, 0, 1}));
}

}  // namespace
}  // namespace choreo
