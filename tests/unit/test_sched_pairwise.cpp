// Open MPI's pairwise MPI_Alltoallv as a schedule, against its loop written out by hand.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "choreo/core/validate.hpp"
#include "choreo/sched/schedulers.hpp"

namespace choreo {
namespace {

// 4 ranks, rank 0 sends 100 B to 1 and 3, rank 2 sends 7 B to 1. Step d: receive from r-d,
// send to r+d; everything else is a 0-byte handshake.
TEST(SchedPairwise, IsOpenMpisLockStepLoop) {
  Pattern p;
  p.ranks = 4;
  p.messages = {{0, 1, 100}, {0, 3, 100}, {2, 1, 7}};
  const Schedule s = schedule_pairwise(p);
  using Call = std::tuple<OpKind, int, std::int64_t>;
  const auto calls = [&](int r) {
    std::vector<Call> out;
    for (const Op& op : s.programs[static_cast<std::size_t>(r)].ops)
      out.emplace_back(op.kind, op.peer, op.bytes);
    return out;
  };
  EXPECT_EQ(calls(0), (std::vector<Call>{{OpKind::Recv, 3, 0},
                                         {OpKind::Send, 1, 100},
                                         {OpKind::Recv, 2, 0},
                                         {OpKind::Send, 2, 0},
                                         {OpKind::Recv, 1, 0},
                                         {OpKind::Send, 3, 100}}));
  EXPECT_EQ(calls(1), (std::vector<Call>{{OpKind::Recv, 0, 100},
                                         {OpKind::Send, 2, 0},
                                         {OpKind::Recv, 3, 0},
                                         {OpKind::Send, 3, 0},
                                         {OpKind::Recv, 2, 7},
                                         {OpKind::Send, 0, 0}}));
  // Each step waits for the previous step's receive and send.
  const auto& ops = s.programs[2].ops;
  EXPECT_TRUE(ops[0].requires_completed.empty());
  EXPECT_EQ(ops[2].requires_completed, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(ops[5].requires_completed, (std::vector<std::int64_t>{2, 3}));
  EXPECT_NO_THROW(validate(s));
  EXPECT_EQ(s.message_count(), 4 * 3);
}

}  // namespace
}  // namespace choreo
