// The jitter study's allreduce simulations against closed forms, a hand-worked case and an
// independent per-rank event simulation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>

#include "choreo/core/error.hpp"
#include "choreo/jitter/allreduce.hpp"
#include "choreo/jitter/noise.hpp"
#include "choreo/jitter/study.hpp"

namespace choreo::jitter {
namespace {

using ::testing::HasSubstr;

JitterParams quiet() {
  JitterParams p;
  p.os_duration = 0;
  p.net_duration = 0;
  return p;
}

/// A trial whose phases the test chooses; the generator is only used by network noise.
Trial trial_with(std::vector<double> phases) {
  return Trial{std::mt19937_64(7), std::move(phases)};
}

TEST(JitterModel, NoiselessButterflyIsTheClosedForm) {
  JitterParams p = quiet();
  p.bytes = 4096;
  for (int k = 1; k <= 12; ++k) {
    const std::int64_t ranks = std::int64_t{1} << k;
    Trial trial = make_trial(p, ranks, 1, 0);
    const auto times = butterfly_times(p, ranks, k, trial);
    const double expected = k * (p.alpha + p.beta * p.bytes + p.gamma * p.bytes);
    EXPECT_NEAR(times.front(), expected, 1e-12 * expected) << "P = " << ranks;
    // Without noise a redundant exchange never beats the rank's own result.
    for (double t : times) EXPECT_DOUBLE_EQ(t, times.front());
  }
}

TEST(JitterModel, NoiselessRingAndRabenseifnerAreTheirClosedForms) {
  JitterParams p = quiet();
  p.bytes = 1 << 20;
  const std::int64_t ranks = 64;
  const double n = p.bytes, share = p.bytes / 64.0;
  Trial a = make_trial(p, ranks, 1, 0), b = make_trial(p, ranks, 1, 0);
  EXPECT_NEAR(ring_time(p, ranks, a), 2 * 63 * (p.alpha + p.beta * share) + 63 * p.gamma * share,
              1e-15);
  EXPECT_NEAR(rabenseifner_time(p, ranks, b),
              2 * 6 * p.alpha + 2 * p.beta * (n - share) + p.gamma * (n - share), 1e-15);
}

/// P = 4, only rank 0 meets a window, worked by hand: Tcomm = 1 us, reduction 0.1 us, the
/// window [1 us, 11 us). Rank 0's first reduction waits until 11 us and ends at 11.1 us; its
/// second ends at 11.2 us, and rank 2, which needs rank 0's data (arriving 12.1 us), at 12.2 us.
/// Ranks 1 and 3 end at 2.2 us, so one redundant exchange hands ranks 0 and 2 the result at
/// 3.2 us.
TEST(JitterModel, OneJitteredRankWorkedByHand) {
  JitterParams p = quiet();
  p.alpha = 1e-6;
  p.beta = 0;
  p.gamma = 1e-8;
  p.bytes = 10;
  p.os_period = 1e-3;
  p.os_duration = 1e-5;
  Trial trial = trial_with({1e-6, 5e-4, 5e-4, 5e-4});
  const auto times = butterfly_times(p, 4, 2, trial);
  ASSERT_EQ(times.size(), 3u);
  EXPECT_NEAR(times[0], 12.2e-6, 1e-15);
  EXPECT_NEAR(times[1], 3.2e-6, 1e-15);
  EXPECT_NEAR(times[2], 3.2e-6, 1e-15);

  // When copies hold their sender's CPU for Tcomm: in exchange 1, ranks 0 and 2 get their
  // partners' copies (3.2 us) before their own result, so they skip their sends; ranks 1 and
  // 3 are busy sending until 3.2 us. In exchange 2 rank 0 holds the result at 3.2 us but its
  // window holds the CPU until 11 us, so its copy to rank 2 keeps it busy until 12 us.
  p.redundant_cost = RedundantCost::SenderBusy;
  Trial again = trial_with({1e-6, 5e-4, 5e-4, 5e-4});
  const auto busy = butterfly_times(p, 4, 2, again);
  EXPECT_NEAR(busy[1], 3.2e-6, 1e-15);
  EXPECT_NEAR(busy[2], 12.0e-6, 1e-15);
}

TEST(JitterModel, ZeroRedundantExchangesIsThePlainButterfly) {
  JitterParams p;
  p.os_duration = 1e-4;
  for (std::int64_t ranks : {2, 7, 64, 100, 1024}) {
    Trial a = make_trial(p, ranks, 42, 3), b = make_trial(p, ranks, 42, 3);
    const auto plain = butterfly_times(p, ranks, 0, a);
    const auto resilient = butterfly_times(p, ranks, butterfly_stages(ranks), b);
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_EQ(plain.front(), resilient.front()) << "P = " << ranks;
    for (double t : resilient) EXPECT_LE(t, plain.front());  // first copy wins: never later
  }
}

TEST(JitterModel, DeterministicUnderASeed) {
  JitterParams p;
  p.os_duration = 1e-4;
  StudyOptions options;
  options.trials = 5;
  options.seed = 123;
  options.rabenseifner = true;
  options.ring = true;
  const PointResult a = run_point(p, 300, options), b = run_point(p, 300, options);
  EXPECT_EQ(a.mean_by_t, b.mean_by_t);
  EXPECT_EQ(a.best_t, b.best_t);
  EXPECT_EQ(a.ring, b.ring);
  EXPECT_EQ(a.rabenseifner, b.rabenseifner);
  options.seed = 124;
  EXPECT_NE(run_point(p, 300, options).mean_by_t, a.mean_by_t);
}

/// A point assembled from its parts, computed in any order (as `choreo-mpi sweep jitter`
/// computes them on different ranks), is run_point's bit for bit: the trials are summed in
/// trial order whatever computed them.
TEST(JitterModel, PartsCombineToRunPointBitForBit) {
  JitterParams p;
  p.os_duration = 5e-5;
  p.net_duration = 2e-6;
  StudyOptions options;
  options.trials = 7;
  options.seed = 99;
  options.ring = true;
  options.rabenseifner = true;
  options.auto_t = true;
  options.max_redundant = 3;
  for (const std::int64_t ranks : {6, 64}) {
    const PointResult whole = run_point(p, ranks, options);
    std::vector<TrialTimes> trials(static_cast<std::size_t>(options.trials));
    for (int i = options.trials - 1; i >= 0; --i)  // backwards: order must not matter
      trials[static_cast<std::size_t>(i)] =
          run_trial(p, ranks, options, static_cast<std::uint64_t>(i));
    const PointResult parts =
        combine_trials(p, ranks, options, noiseless_time(p, ranks, options), trials);
    EXPECT_EQ(parts.mean_by_t, whole.mean_by_t);  // exact, not near
    EXPECT_EQ(parts.noiseless, whole.noiseless);
    EXPECT_EQ(parts.best_t, whole.best_t);
    EXPECT_EQ(parts.ring, whole.ring);
    EXPECT_EQ(parts.rabenseifner, whole.rabenseifner);
    EXPECT_EQ(parts.auto_t, whole.auto_t);
    EXPECT_EQ(parts.auto_time, whole.auto_time);
    ASSERT_TRUE(whole.auto_time.has_value());
    EXPECT_EQ(whole.mean_by_t.size(), ranks == 6 ? 3U : 4U);  // K = min(3, log2 P)
    trials.pop_back();
    EXPECT_THAT([&] { combine_trials(p, ranks, options, 0, trials); },
                ::testing::ThrowsMessage<Error>(HasSubstr("6 trials to combine")));
  }
  options.trials = 0;
  EXPECT_THAT([&] { check_point(p, 8, options); },
              ::testing::ThrowsMessage<Error>(HasSubstr("trials must be >= 1")));
  options.trials = 1;
  EXPECT_THAT([&] { check_point(p, kMaxRingRanks + 1, options); },
              ::testing::ThrowsMessage<Error>(HasSubstr("leave ring out")));
  options.ring = false;
  options.max_redundant = -2;
  EXPECT_THAT([&] { check_point(p, 8, options); },
              ::testing::ThrowsMessage<Error>(HasSubstr("must be 0 or more")));
}

/// Brute force in whole nanoseconds: the first moment at or after `start` outside a window,
/// then `work` ns that no window covers.
std::int64_t brute_finish(std::int64_t start, std::int64_t work, std::int64_t phase,
                          std::int64_t period, std::int64_t duration) {
  auto stolen = [&](std::int64_t t) { return ((t - phase) % period + period) % period < duration; };
  std::int64_t t = start;
  while (stolen(t)) ++t;
  for (std::int64_t done = 0; done < work; ++t)
    if (!stolen(t)) ++done;
  return t;
}

/// An independent simulation of the folded butterfly: every real rank runs its own program of
/// sends, receives and reductions, in rounds, until all have finished.
std::int64_t naive_folded_butterfly(std::int64_t ranks, std::int64_t message, std::int64_t work,
                                    const std::vector<std::int64_t>& phase, std::int64_t period,
                                    std::int64_t duration) {
  std::int64_t p2 = 1;
  while (p2 * 2 <= ranks) p2 *= 2;
  const std::int64_t rem = ranks - p2;
  int stages = 0;
  while ((std::int64_t{1} << stages) < p2) ++stages;
  auto real = [&](std::int64_t v) { return v < rem ? 2 * v : v + rem; };
  std::map<std::tuple<std::int64_t, std::int64_t, int>, std::int64_t> arrival;  // src, dst, tag
  const int fold_tag = -1, unfold_tag = -2;
  struct State {
    int step = 0;  // which receive the rank waits for next
    std::int64_t time = 0;
    bool done = false;
  };
  std::vector<State> state(static_cast<std::size_t>(ranks));
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::int64_t r = 0; r < ranks; ++r) {
      State& s = state[static_cast<std::size_t>(r)];
      if (s.done) continue;
      const bool folded_away = r < 2 * rem && r % 2 == 1;
      const bool folding = r < 2 * rem && r % 2 == 0;
      if (folded_away) {
        if (s.step == 0) {  // hand the vector over, once
          arrival[{r, r - 1, fold_tag}] = message;
          s.step = 1;
          progress = true;
        }
        auto it = arrival.find({r - 1, r, unfold_tag});
        if (it == arrival.end()) continue;
        s.time = it->second;
        s.done = progress = true;
        continue;
      }
      const std::int64_t v = folding ? r / 2 : r - rem;
      if (folding && s.step == 0) {
        auto it = arrival.find({r + 1, r, fold_tag});
        if (it == arrival.end()) continue;
        s.time = brute_finish(std::max(s.time, it->second), work,
                              phase[static_cast<std::size_t>(r)], period, duration);
      }
      if (s.step == 0) s.step = 1;
      while (s.step <= stages) {
        const int stage = s.step - 1;
        const std::int64_t partner = real(v ^ (std::int64_t{1} << stage));
        arrival[{r, partner, stage}] = s.time + message;
        auto it = arrival.find({partner, r, stage});
        if (it == arrival.end()) break;
        s.time = brute_finish(std::max(s.time, it->second), work,
                              phase[static_cast<std::size_t>(r)], period, duration);
        ++s.step;
        progress = true;
      }
      if (s.step > stages) {
        if (folding) arrival[{r, r + 1, unfold_tag}] = s.time + message;
        s.done = progress = true;
      }
    }
  }
  std::int64_t last = 0;
  for (const State& s : state) {
    EXPECT_TRUE(s.done) << "the naive simulation deadlocked";
    last = std::max(last, s.time);
  }
  return last;
}

TEST(JitterModel, FoldedButterflyMatchesANaiveEventSimulation) {
  const std::int64_t message = 200, work = 50, period = 1000, duration = 300;  // ns
  JitterParams p = quiet();
  p.alpha = message * 1e-9;
  p.beta = 0;
  p.bytes = 1;
  p.gamma = work * 1e-9;
  p.os_period = period * 1e-9;
  p.os_duration = duration * 1e-9;
  std::mt19937_64 rng(99);
  for (std::int64_t ranks : {2, 3, 5, 6, 7, 12, 13, 31, 33, 100}) {
    std::vector<std::int64_t> phase(static_cast<std::size_t>(ranks));
    std::vector<double> phase_seconds;
    for (auto& ph : phase) {
      ph = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(period));
      phase_seconds.push_back(static_cast<double>(ph) * 1e-9);
    }
    Trial trial = trial_with(phase_seconds);
    const double simulated = butterfly_times(p, ranks, 0, trial).front();
    const auto naive = naive_folded_butterfly(ranks, message, work, phase, period, duration);
    EXPECT_NEAR(simulated, static_cast<double>(naive) * 1e-9, 1e-12) << "P = " << ranks;
  }
}

TEST(JitterModel, OsFinishWaitsForAWindowAndIsSuspendedByLaterOnes) {
  JitterParams p = quiet();
  p.os_period = 10;
  p.os_duration = 2;                             // windows [3, 5), [13, 15), ... with phase 3
  EXPECT_DOUBLE_EQ(os_finish(p, 3, 0, 1), 1);    // before the window
  EXPECT_DOUBLE_EQ(os_finish(p, 3, 4, 0), 5);    // even no work waits for a running window
  EXPECT_DOUBLE_EQ(os_finish(p, 3, 0, 4), 6);    // suspended by [3, 5)
  EXPECT_DOUBLE_EQ(os_finish(p, 3, 0, 20), 26);  // three windows: 3 + 8 + 8 + 1
  EXPECT_DOUBLE_EQ(os_finish(p, 3, 0, 3), 3);    // ends as the window opens: no wait
}

TEST(JitterModel, BadParametersAreErrorsThatSayWhatToChange) {
  JitterParams p;
  p.os_duration = p.os_period;
  Trial trial = make_trial(p, 4, 1, 0);
  EXPECT_THAT([&] { butterfly_times(p, 4, 0, trial); },
              ::testing::ThrowsMessage<Error>(HasSubstr("shorter than its period")));
  p = JitterParams{};
  p.alpha = -1;
  EXPECT_THAT([&] { butterfly_times(p, 4, 0, trial); },
              ::testing::ThrowsMessage<Error>(HasSubstr("alpha must be")));
  p = JitterParams{};
  EXPECT_THAT([&] { butterfly_times(p, 4, 3, trial); },
              ::testing::ThrowsMessage<Error>(HasSubstr("between 0 and log2 of the butterfly")));
  EXPECT_THAT([&] { butterfly_stages(1); },
              ::testing::ThrowsMessage<Error>(HasSubstr("ranks must be between 2")));
  Trial big = make_trial(p, kMaxRingRanks + 1, 1, 0);
  EXPECT_THAT([&] { ring_time(p, kMaxRingRanks + 1, big); },
              ::testing::ThrowsMessage<Error>(HasSubstr("leave ring out")));
  StudyOptions options;
  options.trials = 0;
  EXPECT_THAT([&] { run_point(p, 4, options); },
              ::testing::ThrowsMessage<Error>(HasSubstr("trials must be >= 1")));
}

}  // namespace
}  // namespace choreo::jitter
