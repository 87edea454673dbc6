// How far a profile can be trusted: bootstrap intervals that cover the known machine's
// parameters, nothing wrong found with a clean calibration, and each impossible fit (the
// loaded machine of issue 21: L 0, g hundreds of times the one-way time, G 0; tables falling
// with size) named with its numbers. The profile's JSON keeps intervals and layout.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "choreo/core/error.hpp"
#include "choreo/model/profile.hpp"
#include "choreo/select/profile_quality.hpp"
#include "synthetic_profile.hpp"

namespace choreo {
namespace {

using namespace choreo::testing;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

bool inside(const Interval& i, double x) { return i.low <= x && x <= i.high; }

TEST(ProfileQuality, IntervalsCoverTheKnownMachineAndHoldTheFit) {
  const MachineProfile p = synthetic_profile(0.02);
  const FitIntervals ci = fit_intervals(p);
  EXPECT_EQ(ci.resamples, 400);
  EXPECT_TRUE(inside(ci.o, kO)) << ci.o.low << " " << ci.o.high;
  EXPECT_TRUE(inside(ci.g, kGap)) << ci.g.low << " " << ci.g.high;
  EXPECT_TRUE(inside(ci.G, kG)) << ci.G.low << " " << ci.G.high;
  EXPECT_TRUE(inside(ci.L, kL)) << ci.L.low << " " << ci.L.high;
  EXPECT_TRUE(inside(ci.L, p.loggp.L) && inside(ci.G, p.loggp.G) && inside(ci.g, p.loggp.g) &&
              inside(ci.alpha, p.hockney.alpha) && inside(ci.beta, p.hockney.beta));
  // Noise widens them; no noise leaves a point.
  const FitIntervals wide = fit_intervals(synthetic_profile(0.10));
  EXPECT_GT(wide.o.high - wide.o.low, ci.o.high - ci.o.low);
  const FitIntervals exact = fit_intervals(synthetic_profile(0));
  EXPECT_EQ(exact.o.low, exact.o.high);
  EXPECT_DOUBLE_EQ(exact.o.low, kO);
  // Deterministic for a seed.
  EXPECT_EQ(fit_intervals(p), ci);
  EXPECT_THROW(fit_intervals(p, 1), Error);
}

TEST(ProfileQuality, ACleanCalibrationHasNoProblems) {
  EXPECT_THAT(fit_problems(synthetic_profile(0.01)), IsEmpty());
  EXPECT_THAT(fit_problems(synthetic_profile(0)), IsEmpty());
}

/// The issue's loaded machine: the bursts took a scheduler time slice each, so their gap is
/// hundreds of microseconds and does not grow with size; the overheads, measured alone,
/// exceed the one-way time.
TEST(ProfileQuality, TheLoadedMachineOfTheIssueIsRefusedWithItsNumbers) {
  MachineProfile p = synthetic_profile(0.01);
  for (auto& b : p.burst.sizes) b.seconds.assign(b.seconds.size(), 8e-3);
  for (double& s : p.overhead.send.seconds) s *= 20;
  fit_profile(p);
  ASSERT_EQ(p.loggp.L, 0);
  ASSERT_EQ(p.loggp.G, 0);
  const std::vector<std::string> problems = fit_problems(p);
  ASSERT_EQ(problems.size(), 3u) << ::testing::PrintToString(problems);
  EXPECT_THAT(problems[0], AllOf(HasSubstr("L is impossible"), HasSubstr("one-way time of")));
  EXPECT_THAT(problems[1], AllOf(HasSubstr("g = 533"), HasSubstr("x the 1 B one-way time")));
  EXPECT_THAT(problems[2], AllOf(HasSubstr("G is 0 although the one-way time grows from"),
                                 HasSubstr("at 64.0 MiB")));
}

TEST(ProfileQuality, TablesThatFallWithSizeAreNamed) {
  MachineProfile p = synthetic_profile(0);
  // 4 KiB measured at a third of 2 KiB's time, microseconds apart.
  p.pingpong[11].seconds.assign(p.pingpong[11].seconds.size(), 30e-6);
  p.pingpong[12].seconds.assign(p.pingpong[12].seconds.size(), 10e-6);
  fit_profile(p);
  EXPECT_THAT(fit_problems(p),
              ElementsAre(AllOf(HasSubstr("the ping-pong table is not monotone: 4.0 KiB takes"),
                                HasSubstr("less than half the 30"), HasSubstr("of 2.0 KiB"))));
  // Nanoseconds apart is timer noise, not a disturbed machine (memcpy of 1 B and 2 B).
  MachineProfile q = synthetic_profile(0);
  q.memcpy[0].seconds.assign(q.memcpy[0].seconds.size(), 49e-9);
  q.memcpy[1].seconds.assign(q.memcpy[1].seconds.size(), 14e-9);
  EXPECT_THAT(fit_problems(q), IsEmpty());
  // The exchange table too.
  q.collective.ranks = 2;
  q.collective.exchange = {{1024, 1, {40e-6}}, {2048, 1, {5e-6}}};
  q.collective.memcpy = {{1024, 1, {1e-7}}, {2048, 1, {2e-7}}};
  EXPECT_THAT(fit_problems(q), ElementsAre(HasSubstr("the exchange table is not monotone")));
}

TEST(ProfileQuality, IntervalsAndLayoutRoundTripAndAreOptional) {
  MachineProfile p = synthetic_profile(0.01);
  p.ci95 = fit_intervals(p);
  p.measured_on = {0.25, 1.5, 2, {"node-a", "node-b"}};
  const MachineProfile back = profile_from_json(profile_to_json(p));
  EXPECT_EQ(back, p);
  EXPECT_EQ(back.measured_on.nodes(), 2);
  EXPECT_FALSE(back.measured_on.same_node(0, 1));
  const MachineProfile old = profile_from_json(profile_to_json(synthetic_profile(0.01)));
  EXPECT_FALSE(old.ci95.has_value());
  EXPECT_TRUE(old.measured_on.empty());
}

std::string error_of(const std::function<void(nlohmann::json&)>& edit) {
  MachineProfile p = synthetic_profile(0.01);
  p.ci95 = fit_intervals(p);
  p.measured_on = {0.25, 1.5, 2, {"a", "a"}};
  nlohmann::json doc = nlohmann::json::parse(profile_to_json(p));
  edit(doc);
  try {
    profile_from_json(doc.dump());
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ProfileQuality, MalformedIntervalsAndLayoutGetOneClearLine) {
  EXPECT_THAT(error_of([](auto& d) {
                d["ci95"]["L"] = {2e-6, 1e-6};
              }),
              HasSubstr("ci95: \"L\" is [2e-06,1e-06]; its low end must not exceed its high end"));
  EXPECT_THAT(error_of([](auto& d) { d["ci95"]["G"] = 3; }),
              HasSubstr("an interval is [low, high]"));
  EXPECT_THAT(error_of([](auto& d) { d["ci95"]["x"] = 1; }), HasSubstr("\"x\""));
  EXPECT_THAT(error_of([](auto& d) { d["measured_on"]["hosts"] = {"a"}; }),
              HasSubstr("\"hosts\" names 1 ranks; the profile has 2"));
  EXPECT_THAT(error_of([](auto& d) { d["measured_on"]["load_average"] = {1}; }),
              HasSubstr("it is [before, after]"));
}

}  // namespace
}  // namespace choreo
