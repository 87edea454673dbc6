// Open MPI's linear gather (with its go-ahead handshake), linear scatter and split-binary-tree
// broadcast against the op lists written out from Open MPI's coll/base loops, and against
// LogGP closed forms.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/engine.hpp"

namespace choreo {
namespace {

using Call = std::tuple<OpKind, int, std::int64_t, int>;  // kind, peer, bytes, tag

std::vector<Call> calls(const Schedule& s, int rank) {
  std::vector<Call> out;
  for (const Op& op : s.programs[static_cast<std::size_t>(rank)].ops)
    out.emplace_back(op.kind, op.peer, op.bytes, op.tag);
  return out;
}

// 5 ranks, root 2, 3000-byte blocks, 1024-byte first segments: ranks 3, 4, 0, 1 in turn.
TEST(CollOpenMpi, GatherLinearSyncIsOpenMpisLoop) {
  const Schedule s = choreo::expand(coll::gather_linear_sync(5, 3000, 2, 1024));
  std::vector<Call> root;
  for (int from : {3, 4, 0, 1}) {
    root.emplace_back(OpKind::Recv, from, 1024, 1);
    root.emplace_back(OpKind::Send, from, 0, 0);
    root.emplace_back(OpKind::Recv, from, 1976, 2);
  }
  root.emplace_back(OpKind::Copy, 0, 3000, 0);
  EXPECT_EQ(calls(s, 2), root);
  for (int r : {0, 1, 3, 4})
    EXPECT_EQ(calls(s, r),
              (std::vector<Call>{
                  {OpKind::Recv, 2, 0, 0}, {OpKind::Send, 2, 1024, 1}, {OpKind::Send, 2, 1976, 2}}))
        << r;
  // A block no larger than the first segment goes in one message.
  EXPECT_EQ(calls(choreo::expand(coll::gather_linear_sync(2, 500, 0, 1024)), 1),
            (std::vector<Call>{{OpKind::Recv, 0, 0, 0}, {OpKind::Send, 0, 500, 1}}));
}

// The handshake serialises the ranks: the root sends rank k+1 its go-ahead only after rank
// k's first segment is in, so no two ranks' first segments are ever in flight together.
TEST(CollOpenMpi, GatherLinearSyncLetsOneRankStartAtATime) {
  const int ranks = 6;
  sim::SimOptions options;
  options.record_ops = true;
  const auto compact = coll::gather_linear_sync(ranks, 5000, 0, 1024);
  const sim::SimResult r = sim::simulate(compact, options);
  const Schedule s = choreo::expand(compact);
  const auto first = compact.first_op(0);
  // Root ops per rank k = 1..5: recv head (3k-3), send go-ahead (3k-2), recv rest (3k-1).
  for (int k = 2; k < ranks; ++k) {
    const auto previous_head = first + 3 * (k - 2);
    const auto go = first + 3 * (k - 1) + 1;
    EXPECT_GE(r.op_start[go], r.op_end[previous_head]) << k;
  }
  EXPECT_EQ(s.message_count(), 3 * (ranks - 1));
}

// LogGOPSim's defaults, 5 ranks, 1000 B: the root's blocking eager sends leave one gap apart,
// gap = max(o, g + (s-1)G) = 6994 ns, to ranks 1..4 (its own block is a free copy); the last
// lands o + L after it leaves and is received o + (s-1)G later.
TEST(CollOpenMpi, ScatterLinearClosedForm) {
  const sim::LogGOPS p;
  const std::int64_t s = 1000;
  const std::int64_t gap = std::max<std::int64_t>(p.o, p.g + std::llround((s - 1) * p.G));
  const std::int64_t last_leaves = 3 * gap;
  sim::SimOptions options;
  const sim::SimResult r = sim::simulate(coll::scatter_linear(5, s, 0), options);
  EXPECT_EQ(r.makespan, last_leaves + p.o + p.L + p.o + std::llround((s - 1) * p.G));
  const Schedule sched = choreo::expand(coll::scatter_linear(5, s, 3));
  EXPECT_EQ(calls(sched, 3), (std::vector<Call>{{OpKind::Send, 0, s, 0},
                                                {OpKind::Send, 1, s, 0},
                                                {OpKind::Send, 2, s, 0},
                                                {OpKind::Copy, 0, s, 0},
                                                {OpKind::Send, 4, s, 0}}));
}

// 4 ranks, 3000 B, 1024-byte pieces: halves of 1500 B (1024 + 476). Open MPI's tree: s = 1
// (odd, first half) has the child 3, s = 2 (second half) is a leaf. Then 1 and 2 swap halves
// and the root sends the second half to 3, which has no partner (tag 2: the piece count).
TEST(CollOpenMpi, SplitBinaryTreeBcastIsOpenMpisLoop) {
  const Schedule s = choreo::expand(coll::bcast_split_bintree(4, 3000, 0, 1024));
  EXPECT_EQ(calls(s, 0), (std::vector<Call>{{OpKind::Send, 1, 1024, 0},
                                            {OpKind::Send, 2, 1024, 0},
                                            {OpKind::Send, 1, 476, 1},
                                            {OpKind::Send, 2, 476, 1},
                                            {OpKind::Send, 3, 1500, 2}}));
  EXPECT_EQ(calls(s, 1), (std::vector<Call>{{OpKind::Recv, 0, 1024, 0},
                                            {OpKind::Recv, 0, 476, 1},
                                            {OpKind::Send, 3, 1024, 0},
                                            {OpKind::Send, 3, 476, 1},
                                            {OpKind::Recv, 2, 1500, 2},
                                            {OpKind::Send, 2, 1500, 2}}));
  EXPECT_EQ(calls(s, 2), (std::vector<Call>{{OpKind::Recv, 0, 1024, 0},
                                            {OpKind::Recv, 0, 476, 1},
                                            {OpKind::Recv, 1, 1500, 2},
                                            {OpKind::Send, 1, 1500, 2}}));
  EXPECT_EQ(calls(s, 3), (std::vector<Call>{{OpKind::Recv, 1, 1024, 0},
                                            {OpKind::Recv, 1, 476, 1},
                                            {OpKind::Recv, 0, 1500, 2}}));
}

// Every rank receives the whole message once, whatever the rank count and root.
TEST(CollOpenMpi, SplitBinaryTreeBcastDeliversEveryByte) {
  for (int ranks : {2, 3, 5, 8, 13, 64})
    for (int root : {0, ranks - 1}) {
      const Schedule s = choreo::expand(coll::bcast_split_bintree(ranks, 64512, root, 1024));
      for (int r = 0; r < ranks; ++r) {
        std::int64_t in = 0;
        for (const Op& op : s.programs[static_cast<std::size_t>(r)].ops)
          if (op.kind == OpKind::Recv) in += op.bytes;
        EXPECT_EQ(in, r == root ? 0 : 64512) << ranks << " ranks, root " << root << ", rank " << r;
      }
      EXPECT_NO_THROW(validate(s));
    }
}

}  // namespace
}  // namespace choreo
