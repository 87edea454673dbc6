// ShapedSchedule: rank programs stored once per shape. Checked against the CompactSchedule the
// same generator (or the same random schedule) gives: the same ops and dependencies, and the
// simulator's same times, event counts and retries under every network and noise.
#include <gtest/gtest.h>

#include <random>

#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/shaped_schedule.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/engine.hpp"
#include "schedule_builder.hpp"

namespace choreo {
namespace {

void expect_shaped_matches_compact(const CompactSchedule& a, const ShapedSchedule& b) {
  ASSERT_EQ(a.ranks(), b.ranks());
  ASSERT_EQ(a.op_count(), b.op_count());
  for (int r = 0; r <= a.ranks(); ++r) ASSERT_EQ(a.first_op(r), b.first_op(r));
  for (OpIndex i = 0; i < a.op_count(); ++i) {
    ASSERT_EQ(a.kind(i), b.kind(i)) << "op " << i;
    ASSERT_EQ(a.amount(i), b.amount(i)) << "op " << i;
    ASSERT_EQ(a.cpu(i), b.cpu(i)) << "op " << i;
    if (a.kind(i) == OpKind::Send || a.kind(i) == OpKind::Recv) {
      ASSERT_EQ(a.peer(i), b.peer(i)) << "op " << i;
      ASSERT_EQ(a.tag(i), b.tag(i)) << "op " << i;
      ASSERT_EQ(a.nic(i), b.nic(i)) << "op " << i;
    }
    ASSERT_EQ(a.dependency_count(i), b.dependency_count(i)) << "op " << i;
    std::vector<OpIndex> da, db;
    a.for_each_completed_dependent(i, [&](OpIndex d) { da.push_back(d); });
    b.for_each_completed_dependent(i, [&](OpIndex d) { db.push_back(d); });
    a.for_each_started_dependent(i, [&](OpIndex d) { da.push_back(~d); });
    b.for_each_started_dependent(i, [&](OpIndex d) { db.push_back(~d); });
    a.for_each_any_dependent(i, [&](OpIndex d) { da.push_back(d ^ 0x55555555u); });
    b.for_each_any_dependent(i, [&](OpIndex d) { db.push_back(d ^ 0x55555555u); });
    ASSERT_EQ(da, db) << "dependents of op " << i;
  }
}

void expect_equal_runs(const sim::SimResult& a, const sim::SimResult& b, const std::string& what) {
  EXPECT_EQ(a.makespan, b.makespan) << what;
  EXPECT_EQ(a.finish, b.finish) << what;
  EXPECT_EQ(a.events, b.events) << what;
  EXPECT_EQ(a.retries, b.retries) << what;
}

std::vector<sim::SimOptions> shaped_test_options(int ranks) {
  std::vector<sim::SimOptions> sets(5);
  sets[1].noise.os = sim::NoiseSpec::Os::Periodic;
  sets[1].noise.os_period = 10000;
  sets[1].noise.os_duration = 700;
  sets[1].noise.net_period = 20000;
  sets[1].noise.net_duration = 300;
  sets[1].noise.seed = 7;
  sets[2].network.kind = NetworkSpec::Kind::Switch;
  sets[2].network.nodes = std::max(1, ranks / 2);
  sets[3] = sets[2];
  sets[3].network.sharing = NetworkSpec::Sharing::Fair;
  sets[4].params.S = 64;  // rendezvous for every message above 64 bytes
  sets[4].dma_receive = true;
  return sets;
}

TEST(SimShaped, RecursiveDoublingAllreduceIsTheGeneratorsSchedule) {
  for (int ranks : {1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 16, 31, 64, 100})
    for (std::int64_t bytes : {0, 8, 100000})
      for (std::int64_t reduce_ns : {0, 250}) {
        SCOPED_TRACE(testing::Message() << ranks << " ranks, " << bytes << " bytes");
        const auto compact = coll::allreduce_recursive_doubling(ranks, bytes, reduce_ns);
        const auto shaped = coll::allreduce_recursive_doubling_shaped(ranks, bytes, reduce_ns);
        expect_shaped_matches_compact(compact, shaped);
        for (const auto& options : shaped_test_options(ranks))
          expect_equal_runs(sim::simulate(compact, options), sim::simulate(shaped, options),
                            "allreduce");
      }
}

TEST(SimShaped, ButterflyRanksShareOneShapeAndTheFoldTwoMore) {
  // Independent of the builder: every rank of a power-of-two butterfly has the same program up
  // to its peers; the fold's standing-in and sitting-out ranks have one shape each.
  EXPECT_EQ(coll::allreduce_recursive_doubling_shaped(1024, 8).shape_count(), 1u);
  EXPECT_EQ(coll::allreduce_recursive_doubling_shaped(1000, 8).shape_count(), 3u);
  // 8 bytes an op (shape op and peer) and 4 a rank, plus the shapes themselves.
  const auto s = coll::allreduce_recursive_doubling_shaped(4096, 8);
  EXPECT_EQ(s.op_count(), 4096u * 12 * 3);
  EXPECT_LT(s.memory_bytes(), 8 * s.op_count() + 4 * 4097 + 4096);
}

TEST(SimShaped, RanksThatDifferBeyondTheirPeersGetShapesOfTheirOwn) {
  // Each rank differs from rank 0 in one field; rank 2 only in its peer, so it shares rank
  // 0's shape: 7 shapes for 8 ranks, and every field read back as built.
  CompactBuilder b(8);
  const auto program = [&](int rank, auto&& add_ops) {
    b.begin_rank(rank);
    add_ops();
  };
  program(0, [&] { b.send(1, 8, 1), b.calc(5); });
  program(1, [&] { b.send(0, 8, 2), b.calc(5); });                        // tag
  program(2, [&] { b.send(3, 8, 1), b.calc(5); });                        // peer only
  program(3, [&] { b.send(2, 16, 1), b.calc(5); });                       // size
  program(4, [&] { b.requires_completed(b.calc(5), b.send(5, 8, 1)); });  // dependency
  program(5, [&] { b.send(4, 8, 1), b.calc(5, 1); });                     // cpu
  program(6, [&] { b.recv(7, 8, 1), b.calc(5); });                        // kind
  program(7, [&] { b.send(6, 8, 1, 0, 1), b.calc(5); });                  // nic
  const CompactSchedule compact = b.finish();
  const ShapedSchedule shaped = choreo::shaped(compact);
  EXPECT_EQ(shaped.shape_count(), 7u);
  expect_shaped_matches_compact(compact, shaped);
}

TEST(SimShaped, RandomSchedulesSimulateAsTheirCompactForm) {
  std::mt19937_64 rng(20261128);
  for (int trial = 0; trial < 300; ++trial) {
    Schedule schedule = test::random_schedule(rng);
    if (trial % 2 == 1) test::add_random_first_of_groups(schedule, rng);
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    const CompactSchedule compact = choreo::compact(schedule);
    const ShapedSchedule shaped = choreo::shaped(compact);
    expect_shaped_matches_compact(compact, shaped);
    for (const auto& options : shaped_test_options(schedule.ranks)) {
      sim::SimResult a, b;
      try {
        a = sim::simulate(compact, options);
      } catch (const Error& e) {  // a deadlocking random schedule fails the same way
        EXPECT_THROW(sim::simulate(shaped, options), Error);
        continue;
      }
      b = sim::simulate(shaped, options);
      expect_equal_runs(a, b, "random");
    }
    expect_shaped_matches_compact(choreo::compact(shaped), shaped);
  }
}

TEST(SimShaped, BuilderRejectsWhatCompactBuilderRejects) {
  ShapedBuilder b(2);
  EXPECT_THROW(b.send(1, 8), Error);  // before begin_rank
  b.begin_rank(0);
  EXPECT_THROW(b.send(2, 8), Error);  // no rank 2
  EXPECT_THROW(b.calc(-1), Error);    // negative time
  const auto send = b.send(1, 8);
  EXPECT_THROW(b.requires_completed(send, send), Error);  // itself
  EXPECT_THROW(b.requires_completed(send, 5), Error);     // no op 5
  EXPECT_THROW(b.begin_rank(0), Error);                   // out of order
  EXPECT_THROW(b.finish(), Error);                        // rank 1 never built
  EXPECT_THROW(coll::allreduce_recursive_doubling_shaped(0, 8), Error);
  EXPECT_THROW(coll::allreduce_recursive_doubling_shaped(4, -1), Error);
}

TEST(SimShaped, GenerateShapedOnlyForGeneratorsThatBuildOne) {
  ASSERT_TRUE(coll::generate_shaped("allreduce:recdbl:ranks=12:bytes=8").has_value());
  EXPECT_FALSE(coll::generate_shaped("allgather:ring:ranks=4:bytes=8").has_value());
  EXPECT_THROW(coll::generate_shaped("allreduce:recdbl:ranks=12"), Error);
}

}  // namespace
}  // namespace choreo

namespace choreo {
namespace {

TEST(SimShaped, AnOpWithMoreThan255DependenciesWaitsForAll) {
  // 300 calcs of 10 ns on one CPU, then one that requires all of them: it starts at 3000 ns
  // (the engine keeps one-byte counters only where no op has more than 255 dependencies).
  CompactBuilder b(1);
  b.begin_rank(0);
  std::vector<std::uint32_t> calcs;
  for (int i = 0; i < 300; ++i) calcs.push_back(b.calc(10));
  const std::uint32_t last = b.calc(10);
  for (const std::uint32_t c : calcs) b.requires_completed(last, c);
  const CompactSchedule compact = b.finish();
  sim::SimOptions options;
  options.record_ops = true;
  for (const auto& r :
       {sim::simulate(compact, options), sim::simulate(choreo::shaped(compact), options)}) {
    EXPECT_EQ(r.op_start[last], 3000);
    EXPECT_EQ(r.makespan, 3010);
  }
}

}  // namespace
}  // namespace choreo
