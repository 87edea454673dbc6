// The simulator's streaming GOAL reader (choreo::sim::compact_from_goal, load_compact) against
// the reference path: schedule_from_goal, then compact(). Both must give the same ops and the
// same dependency lists in the same order (the simulator releases dependents in list order).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/goal_io.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/engine.hpp"
#include "choreo/sim/schedule_file.hpp"
#include "error_of.hpp"
#include "schedule_builder.hpp"

namespace choreo {
namespace {

/// The reference: the Schedule reader, then compact().
CompactSchedule reference(const std::string& goal) {
  return choreo::compact(schedule_from_goal(goal));
}

/// Every array of the two compact forms, compared through the one-to-one expand(); it keeps
/// dependency lists in program order of their targets, so the release order is compared
/// separately below.
void expect_same(const CompactSchedule& a, const CompactSchedule& b, const std::string& what) {
  ASSERT_EQ(a.ranks(), b.ranks()) << what;
  ASSERT_EQ(a.op_count(), b.op_count()) << what;
  EXPECT_EQ(choreo::expand(a), choreo::expand(b)) << what;
  for (OpIndex i = 0; i < a.op_count(); ++i) {
    std::vector<OpIndex> la, lb;
    a.for_each_completed_dependent(i, [&](OpIndex d) { la.push_back(d); });
    b.for_each_completed_dependent(i, [&](OpIndex d) { lb.push_back(d); });
    a.for_each_started_dependent(i, [&](OpIndex d) { la.push_back(d + (1u << 31)); });
    b.for_each_started_dependent(i, [&](OpIndex d) { lb.push_back(d + (1u << 31)); });
    a.for_each_any_dependent(i, [&](OpIndex d) { la.push_back(d); });
    b.for_each_any_dependent(i, [&](OpIndex d) { lb.push_back(d); });
    ASSERT_EQ(la, lb) << what << ", op " << i;
    ASSERT_EQ(a.dependency_count(i), b.dependency_count(i)) << what << ", op " << i;
  }
}

using test::error_of;

TEST(SimScheduleFile, EveryGeneratorReadsAsTheScheduleReaderReadsIt) {
  int cases = 0;
  for (const std::string& name : coll::generator_names()) {
    for (int ranks : {4, 6}) {
      const std::string spec = name + ":ranks=" + std::to_string(ranks) + ":bytes=1000";
      CompactSchedule generated;
      try {
        generated = coll::generate(spec);
      } catch (const Error&) {
        continue;  // a generator that needs other arguments or rank counts
      }
      const std::string goal = schedule_to_goal(choreo::expand(generated, name));
      const sim::LoadedSchedule streamed = sim::compact_from_goal(goal);
      expect_same(streamed.schedule, reference(goal), spec);
      EXPECT_EQ(streamed.algorithm, name);
      ++cases;
    }
  }
  EXPECT_GE(cases, 20);
}

// Random schedules exercise every field, ids that are not positions, irequires and first-of
// groups (with and without the `requires` that stands in for LogGOPSim).
TEST(SimScheduleFile, RandomSchedulesWithGroups) {
  std::mt19937_64 rng(19);
  for (int trial = 0; trial < 400; ++trial) {
    Schedule s = test::random_schedule(rng);
    test::add_random_first_of_groups(s, rng);
    const std::string goal = schedule_to_goal(s);
    expect_same(sim::compact_from_goal(goal).schedule, reference(goal),
                "trial " + std::to_string(trial));
  }
}

TEST(SimScheduleFile, HandWrittenGoalFreeLabelsMissingRanksAndBlocksOutOfOrder) {
  const std::string goal =
      "num_ranks 4\n"
      "/* a comment\n over lines */\n"
      "rank 2 {\n"
      "  start: recv 8b from 0 tag 3\n"
      "  calc 500 cpu 1\n"
      "  // @choreo op=delay\n"
      "  pause: calc 70\n"
      "  done: send 8b to 0 nic 1\n"
      "  done requires start\n"
      "  pause irequires start\n"
      "}\n"
      "rank 0 {\n"  // out of order: the streaming reader falls back to the Schedule reader
      "  send 8b to 2 tag 3\n"
      "  recv 8b from -1 tag -1\n"
      "}\n";
  expect_same(sim::compact_from_goal(goal).schedule, reference(goal), "out of order");
  const std::string in_order =
      "num_ranks 5\r\nrank 1 {\r\n  a: calc 1\r\n  b: calc 2\r\n  c: calc 3\r\n"
      "  c requires a\r\n  b requires a\r\n}\r\n"  // a's list is [b, c], not file order
      "rank 3 {\n l7: send 0b to 1\n}\n";          // ranks 0, 2 and 4 have no block
  const sim::LoadedSchedule streamed = sim::compact_from_goal(in_order);
  expect_same(streamed.schedule, reference(in_order), "missing ranks");
  EXPECT_EQ(streamed.schedule.first_op(2) - streamed.schedule.first_op(1), 3u);
}

TEST(SimScheduleFile, ErrorsNameTheLineOrTheOpAsValidateDoes) {
  // Parse errors are the Schedule reader's own.
  const std::string bad_size = "num_ranks 2\nrank 0 {\nsend 8 to 1\n}\n";
  EXPECT_EQ(error_of([&] { sim::compact_from_goal(bad_size); }),
            error_of([&] { schedule_from_goal(bad_size); }));
  // What the compact form checks as it is built reads as validate's message.
  const std::string bad_peer = "num_ranks 2\nrank 0 {\nsend 8b to 5\n}\n";
  EXPECT_EQ(error_of([&] { sim::compact_from_goal(bad_peer); }),
            error_of([&] { validate(schedule_from_goal(bad_peer)); }));
  const std::string self = "num_ranks 1\nrank 0 {\nl0: calc 1\nl0 requires l0\n}\n";
  EXPECT_EQ(error_of([&] { sim::compact_from_goal(self); }),
            error_of([&] { validate(schedule_from_goal(self)); }));
  EXPECT_THAT(error_of([] { sim::compact_from_goal("num_ranks 0\n"); }),
              ::testing::HasSubstr("needs at least 1"));
  EXPECT_THAT(error_of([] { sim::compact_from_goal("rank 0 {\n}\n"); }),
              ::testing::HasSubstr("missing 'num_ranks N'"));
}

TEST(SimScheduleFile, FilesAreMappedAndNamedInErrors) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("choreo_schedule_file_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // Large enough that pages are released while it is read.
  const std::string goal =
      schedule_to_goal(choreo::expand(coll::generate("allreduce:recdbl:ranks=256:bytes=8")));
  ASSERT_GT(goal.size(), 100'000u);
  const auto path = dir / "a.goal";
  std::ofstream(path) << goal;
  const sim::LoadedSchedule loaded = sim::load_compact(path);
  expect_same(loaded.schedule, reference(goal), "mapped file");
  EXPECT_EQ(sim::simulate(loaded.schedule, {}).makespan,
            sim::simulate(reference(goal), {}).makespan);
  std::ofstream(dir / "bad.goal") << "num_ranks 1\nrank 0 {\nsend 1b to 0 tag -2\n}\n";
  EXPECT_THAT(error_of([&] { sim::load_compact(dir / "bad.goal"); }),
              ::testing::StartsWith((dir / "bad.goal").string() + ": line 3:"));
  std::ofstream(dir / "empty.goal") << "";
  EXPECT_THAT(error_of([&] { sim::load_compact(dir / "empty.goal"); }),
              ::testing::HasSubstr("missing 'num_ranks N'"));
  EXPECT_THAT(error_of([&] { sim::load_compact(dir / "none.goal"); }),
              ::testing::HasSubstr("no such file"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace choreo
