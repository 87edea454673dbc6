// Collective generators: every generator validates (matching, sizes, deadlock) for many P,
// has the closed-form message counts and bytes, and computes its collective, shown by an
// independent data-flow replay (which contributions each rank holds) written here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/validate.hpp"

namespace choreo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::vector<int> kRankCounts = {1, 2, 3, 4, 5, 7, 8, 13, 16, 33};

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }
int log2_floor(int n) {
  int k = 0;
  while ((2 << k) <= n) ++k;
  return k;
}

struct Totals {
  std::int64_t sends = 0, recvs = 0, calcs = 0, send_bytes = 0, ops = 0;
};

Totals totals(const Schedule& s) {
  Totals t;
  for (const Program& p : s.programs) {
    for (const Op& op : p.ops) {
      ++t.ops;
      if (op.kind == OpKind::Send) {
        ++t.sends;
        t.send_bytes += op.bytes;
      }
      if (op.kind == OpKind::Recv) ++t.recvs;
      if (op.kind == OpKind::Calc) ++t.calcs;
    }
  }
  return t;
}

// ---------------------------------------------------------------------------------------
// Data-flow replay. Each rank holds a count per contribution (how many times rank c's input
// is folded into what it holds); a message carries the sender's holdings when the send is
// executed. The replay is adversarial about timing: among ready ops it executes sends first
// (snapshotting as little as possible), then calcs, and receives last, so a missing
// dependency (a send not waiting for the data it forwards, a calc not waiting for its
// receive) shows up as missing contributions.
//
// Semantics: Combine::Union (allgather, bcast): a receive adds what arrived to the holdings
// (as a set). Combine::Sum (allreduce): on a rank that has calcs, a receive fills an
// incoming buffer that the next calc adds to the holdings; on a rank without calcs (a rank
// folded out of the butterfly) a receive replaces the holdings with the result.
enum class Combine { Union, Sum };

using Holdings = std::vector<int>;

class Replay {
 public:
  Replay(const Schedule& s, Combine combine) : s_(s), combine_(combine) {
    const auto n = static_cast<std::size_t>(s.ranks);
    held_.assign(n, Holdings(n, 0));
    incoming_.assign(n, Holdings(n, 0));
    done_.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
      held_[r][r] = 1;
      done_[r].assign(s.programs[r].ops.size(), false);
      has_calc_.push_back(std::ranges::any_of(
          s.programs[r].ops, [](const Op& op) { return op.kind == OpKind::Calc; }));
    }
  }

  /// Runs to the end; returns false if some op could never execute.
  bool run() {
    const OpKind order[] = {OpKind::Send, OpKind::Calc, OpKind::Recv};
    for (;;) {
      bool progressed = false;
      for (OpKind kind : order) {
        progressed = sweep(kind);
        if (progressed) break;  // restart from the highest priority
      }
      if (!progressed) break;
    }
    for (const auto& rank_done : done_)
      if (std::ranges::find(rank_done, false) != rank_done.end()) return false;
    return true;
  }

  const Holdings& held(int rank) const { return held_[static_cast<std::size_t>(rank)]; }

 private:
  using Channel = std::tuple<int, int, int>;  // src, dst, tag

  bool ready(std::size_t r, const Op& op) const {
    const auto& ops = s_.programs[r].ops;
    auto is_done = [&](std::int64_t id) {
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (ops[i].id == id) return static_cast<bool>(done_[r][i]);
      ADD_FAILURE() << "unknown dependency " << id;
      return false;
    };
    return std::ranges::all_of(op.requires_completed, is_done) &&
           std::ranges::all_of(op.requires_started, is_done);
  }

  /// Executes every ready op of `kind` once; true if any ran.
  bool sweep(OpKind kind) {
    bool any = false;
    for (std::size_t r = 0; r < s_.programs.size(); ++r) {
      const auto& ops = s_.programs[r].ops;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (done_[r][i] || ops[i].kind != kind || !ready(r, ops[i])) continue;
        if (!execute(static_cast<int>(r), ops[i])) continue;
        done_[r][i] = true;
        any = true;
      }
    }
    return any;
  }

  bool execute(int rank, const Op& op) {
    const auto r = static_cast<std::size_t>(rank);
    switch (op.kind) {
      case OpKind::Send:
        channels_[{rank, op.peer, op.tag}].push_back(held_[r]);
        return true;
      case OpKind::Calc:
        for (std::size_t c = 0; c < held_[r].size(); ++c) held_[r][c] += incoming_[r][c];
        std::ranges::fill(incoming_[r], 0);
        return true;
      case OpKind::Recv: {
        auto it = channels_.find({op.peer, rank, op.tag});
        if (it == channels_.end() || it->second.empty()) return false;
        Holdings data = std::move(it->second.front());
        it->second.erase(it->second.begin());
        deliver(r, data);
        return true;
      }
      default:
        return true;
    }
  }

  void deliver(std::size_t r, const Holdings& data) {
    if (combine_ == Combine::Union) {
      for (std::size_t c = 0; c < data.size(); ++c) held_[r][c] = held_[r][c] || data[c] ? 1 : 0;
    } else if (has_calc_[r]) {
      for (std::size_t c = 0; c < data.size(); ++c) incoming_[r][c] += data[c];
    } else {
      held_[r] = data;
    }
  }

  Schedule s_;  // a copy: callers pass temporaries
  Combine combine_;
  std::vector<Holdings> held_, incoming_;
  std::vector<std::vector<bool>> done_;
  std::vector<bool> has_calc_;
  std::map<Channel, std::vector<Holdings>> channels_;
};

/// Every rank holds every contribution exactly once.
void expect_everyone_holds_everything(const Schedule& s, Combine combine) {
  Replay replay(s, combine);
  ASSERT_TRUE(replay.run()) << "some op never executed (P = " << s.ranks << ")";
  const Holdings all(static_cast<std::size_t>(s.ranks), 1);
  for (int r = 0; r < s.ranks; ++r) EXPECT_EQ(replay.held(r), all) << "rank " << r;
}

// ---------------------------------------------------------------------------------------
// allreduce: recursive doubling

TEST(CollAllreduceRecursiveDoubling, ValidatesForManyRankCounts) {
  for (int p : kRankCounts)
    EXPECT_NO_THROW(validate(choreo::expand(coll::allreduce_recursive_doubling(p, 64, 10))))
        << "P = " << p;
}

TEST(CollAllreduceRecursiveDoubling, CountsMatchClosedForms) {
  for (int p : kRankCounts) {
    const int p2 = 1 << log2_floor(p), k = log2_floor(p), rem = p - p2;
    const Totals t = totals(choreo::expand(coll::allreduce_recursive_doubling(p, 8, 100)));
    // Butterfly: p2 ranks x k rounds; the fold: one message in and one out per folded pair.
    const std::int64_t messages = std::int64_t{p2} * k + 2 * rem;
    EXPECT_EQ(t.sends, messages) << "P = " << p;
    EXPECT_EQ(t.recvs, messages) << "P = " << p;
    EXPECT_EQ(t.send_bytes, 8 * messages) << "P = " << p;
    EXPECT_EQ(t.calcs, std::int64_t{p2} * k + rem) << "P = " << p;
  }
}

TEST(CollAllreduceRecursiveDoubling, PowerOfTwoHasPKSends) {
  const Totals t = totals(choreo::expand(coll::allreduce_recursive_doubling(16, 4)));
  EXPECT_EQ(t.sends, 16 * 4);
  EXPECT_EQ(t.ops, 16 * 4 * 3);
}

TEST(CollAllreduceRecursiveDoubling, SumsEveryContributionExactlyOnce) {
  for (int p : kRankCounts)
    expect_everyone_holds_everything(choreo::expand(coll::allreduce_recursive_doubling(p, 8)),
                                     Combine::Sum);
}

TEST(CollAllreduceRecursiveDoubling, RoundShapeOnFourRanks) {
  const Schedule s = choreo::expand(coll::allreduce_recursive_doubling(4, 32, 7));
  const auto& ops = s.programs[1].ops;
  ASSERT_EQ(ops.size(), 6u);
  // Round 0 with 1 XOR 1 = 0, round 1 with 1 XOR 2 = 3; tag = round.
  EXPECT_EQ(ops[0].kind, OpKind::Send);
  EXPECT_EQ(ops[0].peer, 0);
  EXPECT_EQ(ops[0].tag, 0);
  EXPECT_EQ(ops[1].kind, OpKind::Recv);
  EXPECT_EQ(ops[1].peer, 0);
  EXPECT_EQ(ops[2].kind, OpKind::Calc);
  EXPECT_EQ(ops[2].nanoseconds, 7);
  EXPECT_THAT(ops[2].requires_completed, ::testing::UnorderedElementsAre(0, 1));
  EXPECT_EQ(ops[3].peer, 3);
  EXPECT_EQ(ops[3].tag, 1);
  EXPECT_THAT(ops[3].requires_completed, ElementsAre(2));
  EXPECT_THAT(ops[4].requires_completed, ElementsAre(2));
}

TEST(CollAllreduceRecursiveDoubling, FoldsOddRanksIntoEvenOnes) {
  // P = 6: p2 = 4, rem = 2; ranks 1 and 3 fold into 0 and 2.
  const Schedule s = choreo::expand(coll::allreduce_recursive_doubling(6, 8));
  const auto& odd = s.programs[1].ops;
  ASSERT_EQ(odd.size(), 2u);
  EXPECT_EQ(odd[0].kind, OpKind::Send);
  EXPECT_EQ(odd[0].peer, 0);
  EXPECT_EQ(odd[1].kind, OpKind::Recv);
  EXPECT_EQ(odd[1].peer, 0);
  EXPECT_THAT(odd[1].requires_completed, ElementsAre(0));
  // Virtual ranks 0..3 are real 0, 2, 4, 5: real 4 (virtual 2) pairs with real 5 then real 0.
  const auto& four = s.programs[4].ops;
  ASSERT_EQ(four.size(), 6u);
  EXPECT_EQ(four[0].peer, 5);
  EXPECT_EQ(four[3].peer, 0);
}

TEST(CollAllreduceRecursiveDoubling, SingleRankIsEmpty) {
  EXPECT_EQ(coll::allreduce_recursive_doubling(1, 8).op_count(), 0u);
}

TEST(CollAllreduceRecursiveDoubling, RejectsBadArguments) {
  EXPECT_THROW(coll::allreduce_recursive_doubling(0, 8), Error);
  EXPECT_THROW(coll::allreduce_recursive_doubling(4, -1), Error);
  EXPECT_THROW(coll::allreduce_recursive_doubling(4, 8, -5), Error);
  try {
    coll::allreduce_recursive_doubling(1 << 30, 8);
    FAIL() << "expected an error for 2^30 ranks";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("more than the"));
  }
}

// ---------------------------------------------------------------------------------------
// bcast: binomial

TEST(CollBcastBinomial, ValidatesForManyRankCountsAndRoots) {
  for (int p : kRankCounts)
    for (int root : {0, p / 2, p - 1})
      EXPECT_NO_THROW(validate(choreo::expand(coll::bcast_binomial(p, 1000, root))))
          << "P = " << p << " root " << root;
}

TEST(CollBcastBinomial, SendsPMinusOneMessages) {
  for (int p : kRankCounts) {
    const Totals t = totals(choreo::expand(coll::bcast_binomial(p, 1000, p / 2)));
    EXPECT_EQ(t.sends, p - 1);
    EXPECT_EQ(t.recvs, p - 1);
    EXPECT_EQ(t.send_bytes, 1000 * (p - 1));
  }
}

TEST(CollBcastBinomial, EveryRankGetsTheRootsData) {
  for (int p : kRankCounts) {
    for (int root : {0, p / 2, p - 1}) {
      Replay replay(choreo::expand(coll::bcast_binomial(p, 64, root)), Combine::Union);
      ASSERT_TRUE(replay.run()) << "P = " << p;
      for (int r = 0; r < p; ++r)
        EXPECT_EQ(replay.held(r)[static_cast<std::size_t>(root)], 1)
            << "P = " << p << " root " << root << " rank " << r;
    }
  }
}

/// (peer, kind) of each op of a rank, for comparing with MPICH's tree by hand.
std::vector<std::pair<OpKind, int>> shape(const Schedule& s, int rank) {
  std::vector<std::pair<OpKind, int>> out;
  for (const Op& op : s.programs[static_cast<std::size_t>(rank)].ops)
    out.emplace_back(op.kind, op.peer);
  return out;
}

TEST(CollBcastBinomial, FollowsMpichTreeAndOrder) {
  using P = std::pair<OpKind, int>;
  const auto S = OpKind::Send, R = OpKind::Recv;
  const Schedule s = choreo::expand(coll::bcast_binomial(8, 1));
  EXPECT_THAT(shape(s, 0), ElementsAre(P{S, 4}, P{S, 2}, P{S, 1}));
  EXPECT_THAT(shape(s, 4), ElementsAre(P{R, 0}, P{S, 6}, P{S, 5}));
  EXPECT_THAT(shape(s, 6), ElementsAre(P{R, 4}, P{S, 7}));
  EXPECT_THAT(shape(s, 7), ElementsAre(P{R, 6}));
  EXPECT_THAT(s.programs[4].ops[1].requires_completed, ElementsAre(0));
  // Tags are steps: 0->4 in step 0, 0->2 and 4->6 in step 1, the four last links in step 2.
  EXPECT_EQ(s.programs[0].ops[0].tag, 0);
  EXPECT_EQ(s.programs[0].ops[1].tag, 1);
  EXPECT_EQ(s.programs[4].ops[1].tag, 1);
  EXPECT_EQ(s.programs[6].ops[0].tag, 1);  // receive from 4
  EXPECT_EQ(s.programs[6].ops[1].tag, 2);
  EXPECT_EQ(s.programs[0].ops[2].tag, 2);
  // P = 5, root 3: relative ranks 0..4 are real 3, 4, 0, 1, 2.
  const Schedule t = choreo::expand(coll::bcast_binomial(5, 1, 3));
  EXPECT_THAT(shape(t, 3), ElementsAre(P{S, 2}, P{S, 0}, P{S, 4}));
  EXPECT_THAT(shape(t, 0), ElementsAre(P{R, 3}, P{S, 1}));
  EXPECT_THAT(shape(t, 2), ElementsAre(P{R, 3}));
}

TEST(CollBcastBinomial, RejectsBadArguments) {
  EXPECT_THROW(coll::bcast_binomial(0, 8), Error);
  EXPECT_THROW(coll::bcast_binomial(4, -8), Error);
  try {
    coll::bcast_binomial(4, 8, 4);
    FAIL() << "expected an error for root 4 of 4 ranks";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("root 4 is not a rank of 0..3"));
  }
  EXPECT_THROW(coll::bcast_binomial(4, 8, -1), Error);
}

// ---------------------------------------------------------------------------------------
// allgather: ring and recursive doubling

TEST(CollAllgatherRing, ValidatesForManyRankCounts) {
  for (int p : kRankCounts)
    EXPECT_NO_THROW(validate(choreo::expand(coll::allgather_ring(p, 4096)))) << "P = " << p;
}

TEST(CollAllgatherRing, SendsPTimesPMinusOneBlocks) {
  for (int p : kRankCounts) {
    const Schedule s = choreo::expand(coll::allgather_ring(p, 4096));
    const Totals t = totals(s);
    EXPECT_EQ(t.sends, std::int64_t{p} * (p - 1));
    EXPECT_EQ(t.send_bytes, std::int64_t{4096} * p * (p - 1));
    for (const Program& prog : s.programs)
      for (const Op& op : prog.ops) EXPECT_EQ(op.bytes, 4096);
  }
}

TEST(CollAllgatherRing, EveryRankGathersEveryBlock) {
  for (int p : kRankCounts)
    expect_everyone_holds_everything(choreo::expand(coll::allgather_ring(p, 8)), Combine::Union);
}

TEST(CollAllgatherRing, RejectsBadArguments) {
  EXPECT_THROW(coll::allgather_ring(0, 8), Error);
  EXPECT_THROW(coll::allgather_ring(3, -8), Error);
  EXPECT_THROW(coll::allgather_ring(100000, 8), Error);  // 2e10 ops
}

TEST(CollAllgatherRecursiveDoubling, ValidatesForPowersOfTwo) {
  for (int p : kRankCounts) {
    if (!is_power_of_two(p)) continue;
    EXPECT_NO_THROW(validate(choreo::expand(coll::allgather_recursive_doubling(p, 64))))
        << "P = " << p;
  }
}

TEST(CollAllgatherRecursiveDoubling, CountsMatchClosedForms) {
  for (int p : {1, 2, 4, 8, 16, 64}) {
    const int k = log2_floor(p);
    const Totals t = totals(choreo::expand(coll::allgather_recursive_doubling(p, 64)));
    EXPECT_EQ(t.sends, std::int64_t{p} * k);
    // Round i moves 64 * 2^i per rank: sum over rounds is 64 * (P - 1) per rank.
    EXPECT_EQ(t.send_bytes, std::int64_t{64} * p * (p - 1));
  }
}

TEST(CollAllgatherRecursiveDoubling, EveryRankGathersEveryBlock) {
  for (int p : {1, 2, 4, 8, 16, 32})
    expect_everyone_holds_everything(choreo::expand(coll::allgather_recursive_doubling(p, 8)),
                                     Combine::Union);
}

TEST(CollAllgatherRecursiveDoubling, RejectsBadArguments) {
  // Other rank counts fold onto a power of two (tests/unit/test_coll_generators.cpp).
  EXPECT_THROW(coll::allgather_recursive_doubling(0, 8), Error);
  EXPECT_THROW(coll::allgather_recursive_doubling(4, -1), Error);
  EXPECT_THROW(coll::allgather_recursive_doubling(1 << 20, std::int64_t{1} << 50), Error);
}

// ---------------------------------------------------------------------------------------
// Scale smoke test (2^12 ranks; 2^20 is a benchmark, not a unit test).

TEST(CollScale, BuildsFourThousandRanks) {
  constexpr int kP = 1 << 12;
  const auto allreduce = coll::allreduce_recursive_doubling(kP, 8, 100);
  EXPECT_EQ(allreduce.op_count(), std::size_t{3} * 12 * kP);
  EXPECT_EQ(allreduce.ranks(), kP);
  EXPECT_NO_THROW(validate(choreo::expand(allreduce)));
  EXPECT_EQ(coll::bcast_binomial(kP, 8, 17).op_count(), std::size_t{2} * (kP - 1));
  EXPECT_EQ(coll::allgather_recursive_doubling(kP, 8).op_count(), std::size_t{2} * 12 * kP);
  EXPECT_EQ(coll::allreduce_recursive_doubling(kP + 5, 8).op_count(),
            std::size_t{3} * 12 * kP + 5 * 5);
}

// ---------------------------------------------------------------------------------------
// Registry

std::string error_of(const std::string& spec) {
  try {
    coll::generate(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CollRegistry, ListsGenerators) {
  EXPECT_THAT(
      coll::generator_names(),
      ElementsAre("allreduce:recdbl", "allreduce:ring", "allreduce:rabenseifner",
                  "allreduce:resilient", "bcast:binomial", "bcast:split_bintree",
                  "bcast:scatter_allgather", "bcast:kary_pipeline", "bcast:multitree",
                  "allgather:ring", "allgather:recdbl", "allgather:bruck", "allgather:neighbor",
                  "alltoall:pairwise", "alltoall:bruck", "barrier:dissemination", "reduce:binomial",
                  "gather:binomial", "gather:linear_sync", "scatter:binomial", "scatter:linear"));
}

// The generators for recorded collectives (choreo import): what reaches the root, or leaves
// it, is every other rank's block once; a barrier is P messages a round.
TEST(CollRegistry, RootedTreesMoveEveryBlockThroughTheRoot) {
  for (int ranks : {1, 2, 5, 8, 13})
    for (int root : {0, ranks / 2, ranks - 1}) {
      auto root_bytes = [&](const Schedule& s, OpKind kind) {
        std::int64_t total = 0;
        for (const Op& op : s.programs[static_cast<std::size_t>(root)].ops)
          if (op.kind == kind) total += op.bytes;
        return total;
      };
      EXPECT_EQ(root_bytes(choreo::expand(coll::gather_binomial(ranks, 10, root)), OpKind::Recv),
                10 * (ranks - 1));
      EXPECT_EQ(root_bytes(choreo::expand(coll::scatter_binomial(ranks, 10, root)), OpKind::Send),
                10 * (ranks - 1));
      const Schedule reduce = choreo::expand(coll::reduce_binomial(ranks, 8, root));
      EXPECT_EQ(reduce.message_count(), ranks - 1);
      EXPECT_EQ(root_bytes(reduce, OpKind::Send), 0);
    }
  EXPECT_EQ(choreo::expand(coll::barrier_dissemination(5)).message_count(), 5 * 3);
  EXPECT_EQ(choreo::expand(coll::barrier_dissemination(1)).message_count(), 0);
}

TEST(CollRegistry, BuildsWhatTheSpecSays) {
  const Schedule a =
      choreo::expand(coll::generate("allreduce:recdbl:ranks=8:bytes=16:reduce_ns=100"));
  EXPECT_EQ(a, choreo::expand(coll::allreduce_recursive_doubling(8, 16, 100)));
  const Schedule b = choreo::expand(coll::generate("bcast:binomial:bytes=65536:root=3:ranks=13"));
  EXPECT_EQ(b, choreo::expand(coll::bcast_binomial(13, 65536, 3)));
  const Schedule c = choreo::expand(coll::generate("allgather:ring:ranks=24:bytes=1048576"));
  EXPECT_EQ(c, choreo::expand(coll::allgather_ring(24, 1048576)));
  const Schedule d = choreo::expand(coll::generate("allgather:recdbl:ranks=16:bytes=64"));
  EXPECT_EQ(d, choreo::expand(coll::allgather_recursive_doubling(16, 64)));
}

TEST(CollRegistry, OptionalKeysDefault) {
  EXPECT_EQ(choreo::expand(coll::generate("allreduce:recdbl:ranks=5:bytes=8")),
            choreo::expand(coll::allreduce_recursive_doubling(5, 8, 0)));
  EXPECT_EQ(choreo::expand(coll::generate("bcast:binomial:ranks=5:bytes=8")),
            choreo::expand(coll::bcast_binomial(5, 8, 0)));
}

TEST(CollRegistry, ErrorMessages) {
  EXPECT_THAT(error_of(""), HasSubstr("must start with collective:algorithm"));
  EXPECT_THAT(error_of("allgather"), HasSubstr("must start with collective:algorithm"));
  EXPECT_THAT(error_of("allgather:"), HasSubstr("must start with collective:algorithm"));
  EXPECT_THAT(
      error_of("scan:ring:ranks=4:bytes=1"),
      HasSubstr("unknown collective 'scan' in generator spec 'scan:ring:ranks=4:bytes=1'; known: "
                "allreduce, bcast, allgather, alltoall, barrier, reduce, gather or scatter"));
  EXPECT_THAT(error_of("allgather:magic:ranks=4:bytes=1"),
              HasSubstr("unknown allgather algorithm 'magic'"));
  EXPECT_THAT(error_of("allgather:magic:ranks=4:bytes=1"),
              HasSubstr("known: ring, recdbl, bruck or neighbor"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4:bytes=1:root=2"),
              HasSubstr("unknown key 'root' for allgather:ring"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4:bytes=1:root=2"),
              HasSubstr("it takes ranks or bytes"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4:bytes"), HasSubstr("'bytes' in generator spec"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4:bytes"), HasSubstr("is not key=value"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4:ranks=5:bytes=1"),
              HasSubstr("key 'ranks' appears twice"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4"), HasSubstr("lacks bytes=..."));
  EXPECT_THAT(error_of("bcast:binomial:bytes=4"),
              HasSubstr("lacks ranks=...; bcast:binomial needs ranks or bytes"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4x:bytes=1"),
              HasSubstr("ranks='4x' in generator spec"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4x:bytes=1"), HasSubstr("is not a decimal integer"));
  EXPECT_THAT(error_of("allgather:ring:ranks=:bytes=1"), HasSubstr("is not a decimal integer"));
  EXPECT_THAT(error_of("allgather:ring:ranks=+4:bytes=1"), HasSubstr("is not a decimal integer"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4:bytes=99999999999999999999"),
              HasSubstr("is out of the 64-bit range"));
  // choreo's limits (docs/formats.md, Limits) are checked before anything is built.
  EXPECT_THAT(error_of("allgather:ring:ranks=4294967296:bytes=1"),
              HasSubstr("ranks=4294967296 in generator spec 'allgather:ring:ranks=4294967296:"
                        "bytes=1' is out of range: choreo takes at most 2^24 = 16777216 ranks"));
  EXPECT_THAT(error_of("allgather:ring:ranks=16777217:bytes=1"), HasSubstr("is out of range"));
  EXPECT_THAT(error_of("allgather:ring:ranks=4:bytes=1125899906842625"),
              HasSubstr("bytes=1125899906842625 in generator spec 'allgather:ring:ranks=4:bytes="
                        "1125899906842625' is out of range: choreo takes at most 2^50 bytes"));
  // Errors of the generators themselves come through unchanged.
  EXPECT_THAT(error_of("allgather:neighbor:ranks=5:bytes=1"),
              HasSubstr("needs an even number of ranks"));
  EXPECT_THAT(error_of("bcast:binomial:ranks=4:bytes=1:root=9"), HasSubstr("root 9"));
  EXPECT_THAT(error_of("allreduce:recdbl:ranks=4:bytes=-1"), HasSubstr("bytes must be 0 or more"));
}

}  // namespace
}  // namespace choreo
