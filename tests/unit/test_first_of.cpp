// The IR's first-of dependency (Op::requires_any) through every consumer: JSON and GOAL
// spellings, the validator, the simulator against a hand-worked LogGOPS time, and the
// allreduce:resilient generator against a reference built here from paper 004's description.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "choreo/coll/generators.hpp"
#include "choreo/coll/resilient.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/goal_io.hpp"
#include "choreo/core/json_io.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/engine.hpp"
#include "choreo/sim/trace.hpp"
#include "error_of.hpp"
#include "schedule_builder.hpp"

namespace choreo {
namespace {

using test::Builder;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

using test::error_of;

/// Rank 0 waits for the first of two one-byte messages, from rank 1 (after `delay_ns`) and
/// from rank 2 (at once), then computes for calc_ns. Ids: rank 0 recv from 1 = 0, recv from
/// 2 = 1, calc = 2; rank 1 delay = 0, send = 1; rank 2 send = 0.
Schedule first_of_two(std::int64_t delay_ns, std::int64_t calc_ns) {
  Builder b(3);
  b.recv(0, 0, 1, 1).recv(0, 1, 2, 1).calc(0, 2, calc_ns);
  b.last().requires_any = {0, 1};  // the delayed one first: GOAL keeps the slow member
  b.delay(1, 0, delay_ns).send(1, 1, 0, 1).after({0});
  b.send(2, 0, 0, 1);
  return b.build();
}

// ---- JSON -------------------------------------------------------------------------------

TEST(FirstOfJson, RoundTripsAndOldFilesStayValid) {
  const Schedule s = first_of_two(1000, 50);
  const std::string text = schedule_to_json(s);
  EXPECT_THAT(text, HasSubstr("\"requires_any\":[0,1]"));
  EXPECT_EQ(schedule_from_json(text), s);

  // A file written before the field existed reads as before: no group.
  const Schedule old = schedule_from_json(
      R"({"format": "choreo.schedule/1", "ranks": 1, "programs": [{"rank": 0, "ops": [
          {"id": 0, "op": "calc", "seconds": 1e-6},
          {"id": 1, "op": "calc", "seconds": 0, "requires": [0]}]}]})");
  EXPECT_TRUE(old.programs[0].ops[1].requires_any.empty());
  EXPECT_EQ(old.programs[0].ops[1].requires_completed, std::vector<std::int64_t>{0});
  EXPECT_THAT(schedule_to_json(old), Not(HasSubstr("requires_any")));
}

TEST(FirstOfJson, RejectsBadIds) {
  const auto read = [](const std::string& group) {
    return error_of([&] {
      schedule_from_json(
          R"({"format": "choreo.schedule/1", "ranks": 1, "programs": [{"rank": 0, "ops": [
              {"id": 0, "op": "calc", "seconds": 0, "requires_any": )" +
          group + "}]}]}");
    });
  };
  EXPECT_THAT(read("[\"a\"]"), AllOf(HasSubstr("requires_any"), HasSubstr("not an op id")));
  EXPECT_THAT(read("[1.5]"), HasSubstr("not an op id"));
  EXPECT_THAT(read("3"), HasSubstr("\"requires_any\" must be an array of op ids"));
}

// ---- GOAL -------------------------------------------------------------------------------

TEST(FirstOfGoal, KeepsTheFirstMemberAsRequiresAndSaysSo) {
  const Schedule s = first_of_two(1000, 50);
  const std::string goal = schedule_to_goal(s);
  EXPECT_THAT(goal, HasSubstr("// first-of: choreo starts l2 once the first of l0, l1 completed; "
                              "GOAL has no such dependency, so LogGOPSim waits for l0 alone\n"
                              "// @choreo requires_any=l0,l1 goal_requires=l0\n"
                              "l2: calc 50\n"));
  EXPECT_THAT(goal, HasSubstr("\nl2 requires l0\n"));
  EXPECT_THAT(goal, Not(HasSubstr("l2 requires l1")));
  EXPECT_EQ(schedule_from_goal(goal), s);  // choreo's reader restores the group exactly

  // What LogGOPSim reads (the annotation is a comment to it): a plain `requires` on l0.
  std::string plain;
  std::istringstream lines(goal);
  for (std::string line; std::getline(lines, line);)
    if (!line.starts_with("//")) plain += line + "\n";
  const Schedule seen = schedule_from_goal(plain);
  const Op& calc = seen.programs[0].ops[2];
  EXPECT_TRUE(calc.requires_any.empty());
  EXPECT_EQ(calc.requires_completed, std::vector<std::int64_t>{0});
}

TEST(FirstOfGoal, NeedsNoStandInWhenAMemberIsRequiredAnyway) {
  Schedule s = first_of_two(1000, 50);
  s.programs[0].ops[2].requires_completed = {1};  // the group is then met whenever l2 may start
  const std::string goal = schedule_to_goal(s);
  EXPECT_THAT(goal, HasSubstr("// @choreo requires_any=l0,l1\nl2: calc 50\n"));
  EXPECT_THAT(goal, Not(HasSubstr("first-of:")));
  EXPECT_THAT(goal, Not(HasSubstr("l2 requires l0")));
  EXPECT_EQ(schedule_from_goal(goal), s);
}

TEST(FirstOfGoal, ReaderRejectsInconsistentAnnotations) {
  const auto read = [](const std::string& block) {
    return error_of([&] { schedule_from_goal("num_ranks 1\nrank 0 {\n" + block + "}\n"); });
  };
  EXPECT_THAT(read("l0: calc 1\n// @choreo goal_requires=l0\nl1: calc 2\nl1 requires l0\n"),
              HasSubstr("give the group too"));
  EXPECT_THAT(read("l0: calc 1\n// @choreo requires_any=l0 goal_requires=l0\nl1: calc 2\n"),
              HasSubstr("has no 'requires l0' line"));
  EXPECT_THAT(read("l0: calc 1\n// @choreo requires_any=l0,l9\nl1: calc 2\n"),
              HasSubstr("names label 'l9', which rank 0's block does not define"));
  EXPECT_THAT(read("l0: calc 1\n// @choreo requires_any=l0,\nl1: calc 2\n"),
              HasSubstr("takes op labels"));
  EXPECT_THAT(read("l0: calc 1\nl2: calc 1\n// @choreo requires_any=l0 goal_requires=l2\n"
                   "l1: calc 2\nl1 requires l2\n"),
              HasSubstr("must name a member"));
  // Members may be defined after the op, unlike the labels of a dependency line.
  const Schedule later = schedule_from_goal(
      "num_ranks 1\nrank 0 {\n// @choreo requires_any=l1\nl0: calc 1\nl1: calc 2\n}\n");
  EXPECT_EQ(later.programs[0].ops[0].requires_any, std::vector<std::int64_t>{1});
}

// Random schedules with random groups (members before or after the op, sometimes also
// required) come back unchanged through both spellings.
TEST(FirstOfRoundTrip, RandomSchedulesThroughJsonAndGoal) {
  std::mt19937_64 rng(2026);
  int groups = 0, stand_ins = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Schedule s = test::random_schedule(rng);
    test::add_random_first_of_groups(s, rng);
    for (auto& program : s.programs)
      for (Op& op : program.ops) {
        if (op.requires_any.empty()) continue;
        ++groups;
        const bool also_required =
            std::ranges::find_first_of(op.requires_any, op.requires_completed) !=
            op.requires_any.end();
        stand_ins += also_required ? 0 : 1;
      }
    ASSERT_EQ(schedule_from_json(schedule_to_json(s)), s) << "trial " << trial;
    ASSERT_EQ(schedule_from_goal(schedule_to_goal(s)), s) << "trial " << trial;
  }
  EXPECT_GT(groups, 100);  // the loop did exercise groups, with and without a stand-in
  EXPECT_GT(stand_ins, 50);
  EXPECT_GT(groups - stand_ins, 10);
}

// ---- validation -------------------------------------------------------------------------

/// Rank 0 answers rank 2 only after its first-of group is met, and rank 2 sends its member of
/// the group only after that answer: only rank 1's message can meet the group.
Schedule met_by_one_member(bool all_required) {
  Builder b(3);
  b.recv(0, 0, 1, 8).recv(0, 1, 2, 8).calc(0, 2, 0);
  if (all_required)
    b.after({0, 1});
  else
    b.last().requires_any = {1, 0};
  b.send(0, 3, 2, 8).after({2});
  b.send(1, 0, 0, 8);
  b.recv(2, 0, 0, 8).send(2, 1, 0, 8).after({0});
  return b.build();
}

TEST(FirstOfValidate, AcceptsAGroupThatOneMemberMeets) {
  EXPECT_EQ(error_of([] { validate(met_by_one_member(false)); }), "no error");
  // Requiring both is a real deadlock, which the same check finds.
  EXPECT_THAT(error_of([] { validate(met_by_one_member(true)); }), HasSubstr("deadlock"));
}

TEST(FirstOfValidate, RejectsUnknownAndSelfIds) {
  Schedule s = met_by_one_member(false);
  s.programs[0].ops[2].requires_any = {0, 7};
  EXPECT_THAT(error_of([&] { validate(s); }),
              AllOf(HasSubstr("rank 0, op 2 (calc 0 ns, after the first of ops 0, 7)"),
                    HasSubstr("depends on op 7 (in requires_any), which rank 0 does not have")));
  s.programs[0].ops[2].requires_any = {0, 2};
  EXPECT_THAT(error_of([&] { validate(s); }), HasSubstr("lists itself (op 2)"));
}

TEST(FirstOfValidate, AGroupWhoseMembersAreAllStuckIsACycleOrADeadlock) {
  Builder cycle(1);
  cycle.calc(0, 0, 1).calc(0, 1, 1).calc(0, 2, 1).after({1});
  Schedule s = cycle.build();
  s.programs[0].ops[1].requires_any = {2};  // 1 waits for 2, 2 waits for 1
  EXPECT_THAT(error_of([&] { validate(s); }), HasSubstr("dependency cycle"));
  s.programs[0].ops[1].requires_any = {2, 0};  // op 0 meets the group: no cycle
  EXPECT_EQ(error_of([&] { validate(s); }), "no error");

  Schedule stuck = met_by_one_member(false);
  stuck.programs[0].ops[2].requires_any = {1};  // only rank 2's member, which waits for op 3
  EXPECT_THAT(error_of([&] { validate(stuck); }), HasSubstr("deadlock"));
}

// ---- simulator --------------------------------------------------------------------------

sim::SimResult simulate_recorded(const Schedule& s) {
  sim::SimOptions options;  // LogGOPSim's defaults: L 2500, o 1500, g 1000, G 6, O 0
  options.record_ops = true;
  return sim::simulate(choreo::compact(s), options);
}

// Rank 2's one-byte message leaves its CPU at o, reaches rank 0 at o + L and is received
// by rank 0's idle CPU in o + (1-1)G: the group is met at 2o + L = 5500 ns, so the calc runs
// 5500 .. 5500 + 50. Rank 1's message, sent after a 1 ms delay, is received at
// delay + 2o + L and gates nothing; requiring it (what LogGOPSim sees in GOAL) would start the
// calc only then.
TEST(FirstOfSim, TheFastMemberStartsTheOp) {
  const sim::LogGOPS p;
  const std::int64_t delay = 1'000'000, calc = 50, one_way = 2 * p.o + p.L;
  const sim::SimResult r = simulate_recorded(first_of_two(delay, calc));
  // Ops are numbered over all ranks: rank 0's recv from 1, recv from 2, calc are 0, 1, 2.
  EXPECT_EQ(r.op_start[2], one_way);
  EXPECT_EQ(r.op_end[2], one_way + calc);
  EXPECT_EQ(r.op_end[0], delay + one_way);  // the slow copy still arrives
  EXPECT_EQ(r.makespan, delay + one_way);

  // The trace names the group, so a marker that ends before a member does reads as meant.
  EXPECT_THAT(sim::chrome_trace(choreo::compact(first_of_two(delay, calc)), r),
              HasSubstr("\"calc 50 ns, first of 2\""));

  Schedule as_goal = first_of_two(delay, calc);
  as_goal.programs[0].ops[2].requires_any.clear();
  as_goal.programs[0].ops[2].requires_completed = {0};
  EXPECT_EQ(simulate_recorded(as_goal).op_start[2], delay + one_way);
}

// ---- the allreduce:resilient generator --------------------------------------------------

/// The schedule paper 004's method should give, written from the doc comment of
/// coll_resilient.hpp with plain loops: ids are program positions.
Schedule reference_resilient(int ranks, std::int64_t bytes, int t, std::int64_t reduce_ns) {
  Schedule s;
  s.ranks = ranks;
  s.programs.resize(static_cast<std::size_t>(ranks));
  if (ranks == 1) return s;
  const int p2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(ranks)));
  const int k = std::countr_zero(static_cast<unsigned>(p2));
  const int rem = ranks - p2;
  const auto real = [&](int v) { return v < rem ? 2 * v : v + rem; };
  for (int r = 0; r < ranks; ++r) {
    auto& ops = s.programs[static_cast<std::size_t>(r)].ops;
    const auto add = [&](OpKind kind, int peer, int tag, std::int64_t amount,
                         std::vector<std::int64_t> after) {
      Op op;
      op.id = static_cast<std::int64_t>(ops.size());
      op.kind = kind;
      if (kind == OpKind::Calc) {
        op.nanoseconds = amount;
      } else {
        op.peer = peer;
        op.tag = tag;
        op.bytes = amount;
      }
      op.requires_completed = std::move(after);
      ops.push_back(op);
      return op.id;
    };
    if (r < 2 * rem && r % 2 == 1) {  // folded away: hand over, get the result back
      const auto give = add(OpKind::Send, r - 1, k, bytes, {});
      add(OpKind::Recv, r - 1, k + 1, bytes, {give});
      continue;
    }
    const bool standing_in = r < 2 * rem;
    const int v = standing_in ? r / 2 : r - rem;
    std::vector<std::int64_t> before;
    if (standing_in)
      before = {add(OpKind::Calc, 0, 0, reduce_ns, {add(OpKind::Recv, r + 1, k, bytes, {})})};
    for (int stage = 0; stage < k; ++stage) {
      const int partner = real(v ^ (1 << stage));
      const auto send = add(OpKind::Send, partner, stage, bytes, before);
      const auto recv = add(OpKind::Recv, partner, stage, bytes, before);
      before = {add(OpKind::Calc, 0, 0, reduce_ns, {send, recv})};
    }
    std::vector<std::int64_t> group = before;
    for (int j = 0; j < t; ++j)
      group.push_back(add(OpKind::Recv, real(v ^ (1 << j)), k + 2 + j, bytes, {}));
    const auto ready = add(OpKind::Calc, 0, 0, 0, {});
    ops.back().requires_any = group;
    for (int j = 0; j < t; ++j) add(OpKind::Send, real(v ^ (1 << j)), k + 2 + j, bytes, {ready});
    if (standing_in) add(OpKind::Send, r + 1, k + 1, bytes, {ready});
  }
  return s;
}

/// Dependency lists in ascending order: expand() lists them by program position.
Schedule sorted_dependencies(Schedule s) {
  for (auto& program : s.programs)
    for (auto& op : program.ops)
      for (auto* list : {&op.requires_completed, &op.requires_started, &op.requires_any})
        std::sort(list->begin(), list->end());
  return s;
}

int stages_of(int ranks) { return std::bit_width(static_cast<unsigned>(ranks)) - 1; }

TEST(AllreduceResilient, MatchesTheReferenceForEveryRankCountAndT) {
  for (int ranks = 1; ranks <= 33; ++ranks)
    for (int t = 0; t <= stages_of(ranks); ++t) {
      const Schedule got = choreo::expand(coll::allreduce_resilient(ranks, 1001, t, 70));
      ASSERT_EQ(sorted_dependencies(got),
                sorted_dependencies(reference_resilient(ranks, 1001, t, 70)))
          << "P = " << ranks << ", T = " << t;
      ASSERT_EQ(error_of([&] { validate(got); }), "no error") << "P = " << ranks << ", T = " << t;
    }
}

TEST(AllreduceResilient, RegistryAndArgumentChecks) {
  EXPECT_EQ(choreo::expand(coll::generate("allreduce:resilient:ranks=8:bytes=4096:T=2")),
            choreo::expand(coll::allreduce_resilient(8, 4096, 2)));
  EXPECT_EQ(choreo::expand(coll::generate("allreduce:resilient:ranks=6:bytes=8:T=1:reduce_ns=9")),
            choreo::expand(coll::allreduce_resilient(6, 8, 1, 9)));
  EXPECT_THAT(error_of([] { coll::generate("allreduce:resilient:ranks=8:bytes=8"); }),
              HasSubstr("lacks T="));
  EXPECT_THAT(error_of([] { coll::allreduce_resilient(8, 8, 4); }),
              AllOf(HasSubstr("T = 4 is outside 0..3"), HasSubstr("choose T in 0..3")));
  EXPECT_THAT(error_of([] { coll::allreduce_resilient(12, 8, -1); }),
              HasSubstr("T = -1 is outside 0..3"));
  EXPECT_THAT(error_of([] { coll::allreduce_resilient(1, 8, 1); }),
              HasSubstr("T = 1 is outside 0..0"));
}

/// The generated schedule with rank `late` held up by `delay_ns` between its first and second
/// butterfly stage (paper 004's Fig. 3: a late message in stage 2), simulated; returns when
/// the last rank held the result: its ready op, or for a folded-away rank the result's receive.
std::int64_t result_time(int ranks, int t, int late, std::int64_t delay_ns) {
  Schedule s = choreo::expand(coll::allreduce_resilient(ranks, 64, t, 100));
  auto& ops = s.programs[static_cast<std::size_t>(late)].ops;
  // The first calc after a stage-0 receive ends stage 0; the stage-1 send and receive
  // require it. Put a delay in between.
  const auto stage0 = std::find_if(
      ops.begin(), ops.end(), [](const Op& op) { return op.kind == OpKind::Recv && op.tag == 0; });
  const std::int64_t calc0 = (stage0 + 1)->id, delay = static_cast<std::int64_t>(ops.size());
  for (Op& op : ops)
    if (op.is_message() && op.tag == 1 && op.requires_completed == std::vector{calc0})
      op.requires_completed = {delay};
  Op pause;
  pause.id = delay;
  pause.kind = OpKind::Delay;
  pause.nanoseconds = delay_ns;
  pause.requires_completed = {calc0};
  ops.push_back(pause);
  validate(s);
  const sim::SimResult r = simulate_recorded(s);
  const CompactSchedule c = choreo::compact(s);
  std::int64_t last = 0;
  for (int rank = 0; rank < ranks; ++rank) {
    const auto& program = s.programs[static_cast<std::size_t>(rank)].ops;
    // The ready op is the only calc with a first-of group; a folded-away rank has none.
    std::size_t at = program.size() - 1;
    for (std::size_t i = 0; i < program.size(); ++i)
      if (!program[i].requires_any.empty()) at = i;
    last = std::max(last, r.op_end[c.first_op(rank) + at]);
  }
  return last;
}

TEST(AllreduceResilient, RedundantCopiesHideALateRank) {
  const std::int64_t delay = 2'000'000;  // far longer than any message here
  for (int ranks : {4, 8, 13, 16}) {
    const int k = stages_of(ranks);
    const int late = ranks - 1;  // a rank in the butterfly for every P
    const std::int64_t plain = result_time(ranks, 0, late, delay);
    EXPECT_GE(plain, delay) << "P = " << ranks;
    for (int t = 1; t <= k; ++t) {
      const std::int64_t resilient = result_time(ranks, t, late, delay);
      EXPECT_LE(resilient, plain) << "P = " << ranks << ", T = " << t;
      // The late rank's stage-0 partner rescues it: one copy instead of K-1 stages late.
      EXPECT_LT(resilient, plain) << "P = " << ranks << ", T = " << t;
    }
  }
}

}  // namespace
}  // namespace choreo
