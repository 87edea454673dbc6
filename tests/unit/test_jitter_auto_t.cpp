// The rule for T against a small brute-force sweep: the rule's T must be (nearly) as fast as
// the best T found by trying them all.
#include <gtest/gtest.h>

#include <algorithm>

#include "choreo/jitter/auto_t.hpp"
#include "choreo/jitter/study.hpp"

namespace choreo::jitter {
namespace {

TEST(JitterAutoT, NoNoiseNeedsNoExchangeAndHiddenJitterOne) {
  JitterParams p;
  p.os_duration = p.net_duration = 0;
  EXPECT_EQ(auto_redundant_exchanges(p, 1024), 0);
  p.os_duration = p.net_duration = 1e-7;  // far below a 1 us message
  EXPECT_EQ(auto_redundant_exchanges(p, 1024), 1);
}

TEST(JitterAutoT, CopiesThatCostTheirSenderGetOneExchange) {
  JitterParams p;
  p.redundant_cost = RedundantCost::SenderBusy;
  EXPECT_EQ(auto_redundant_exchanges(p, 4096), 1);
  StudyOptions options;
  options.trials = 8;
  const PointResult r = run_point(p, 256, options);
  EXPECT_LE(r.mean_by_t[1], 1.05 * r.best());
}

TEST(JitterAutoT, RuleIsWithinFivePercentOfTheBestTInASmallSweep) {
  StudyOptions options;
  options.trials = 8;
  options.seed = 5;
  for (const Coupling coupling : {Coupling::Exchange, Coupling::Independent})
    for (const double duty : {1e-3, 1e-2, 1e-1})
      for (const std::int64_t ranks : {16, 64, 256, 1000}) {
        JitterParams p;
        p.coupling = coupling;
        p.os_period = p.net_period = 1e-3;
        p.os_duration = p.net_duration = duty * p.os_period;
        const PointResult r = run_point(p, ranks, options);
        const int t = auto_redundant_exchanges(p, ranks);
        ASSERT_GE(t, 1);
        ASSERT_LE(t, r.stages);
        EXPECT_LE(r.mean_by_t[static_cast<std::size_t>(t)], 1.05 * r.best())
            << "P = " << ranks << ", duration/period = " << duty << ", rule T = " << t
            << ", best T = " << r.best_t;
      }
}

}  // namespace
}  // namespace choreo::jitter
