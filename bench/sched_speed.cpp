// How long the schedulers take, side by side: paper 000's delay insertion (the baseline)
// and the optimal edge colouring, on dense and sparse patterns up to 4096 ranks, with the
// delays each inserts; --paper: the delays on paper 000's scale-free patterns (64 ranks);
// --exchange: how long plan_exchange(Auto) takes, on those and on larger exchanges.
//   build/default/bench/choreo-bench-sched [--max-ranks 4096] [--repeat 1] [--paper | --exchange]
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../src/core/stats.hpp"
#include "choreo/model/slot_model.hpp"
#include "choreo/sched/exchange_plan.hpp"
#include "choreo/sched/schedulers.hpp"

namespace {

/// The median wall time of `runs` runs (the machine is shared: one run can be unlucky).
double seconds(int runs, const std::function<void()>& f) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return choreo::stats::median(times);
}

constexpr const char* kUsage =
    "usage: choreo-bench-sched [--max-ranks N] [--repeat N] [--paper]\n"
    "  --max-ranks N  skip the cases with more ranks (default 4096)\n"
    "  --repeat N     time each scheduler N times and print the median (default 1)\n"
    "  --paper        paper 000's scale-free patterns of 64 ranks instead: slots, delays\n"
    "  --exchange     plan_exchange(Auto) with the default model instead: time, choice\n"
    "  --budget N     with --exchange: the model's simulation budget (0: paper 000's model)\n";

/// Slots (the longest rank's plan) and delays (empty slots before each rank's last send).
struct Shape {
  std::size_t slots = 0, delays = 0;
};
Shape shape(const choreo::SlotPlan& plan) {
  Shape out;
  for (const auto& row : plan.slots) {
    const std::size_t used = choreo::used_length(row);
    out.slots = std::max(out.slots, used);
    out.delays += static_cast<std::size_t>(
        std::count(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(used), -1));
  }
  return out;
}

/// Paper 000's scale-free patterns (64 ranks, m0 = m, seed 1, 63 KiB): what each scheduler
/// inserts, and how long it takes.
void paper_patterns(int repeat) {
  fmt::print("{:<10} {:>8} {:>6} {:>14} {:>14} {:>10} {:>10}\n", "pattern", "messages", "bound",
             "delay: slots/d", "optimal: s/d", "delay (s)", "optimal (s)");
  for (int m : {4, 7, 12, 17, 28}) {
    const choreo::Pattern p = choreo::patterns::scale_free(64, m, m, 64512, 1);
    choreo::SlotPlan delay, optimal;
    const double t_delay = seconds(repeat, [&] { delay = choreo::plan_delay_insertion(p); });
    const double t_optimal = seconds(repeat, [&] { optimal = choreo::plan_optimal(p); });
    const Shape d = shape(delay), o = shape(optimal);
    fmt::print("{:<10} {:>8} {:>6} {:>14} {:>14} {:>10.5f} {:>10.5f}\n", fmt::format("sf m={}", m),
               p.messages.size(), choreo::report_plan(p, optimal, {}).degree_bound,
               fmt::format("{} / {}", d.slots, d.delays), fmt::format("{} / {}", o.slots, o.delays),
               t_delay, t_optimal);
  }
}

/// plan_exchange(Auto) with ExchangeModel's defaults: its time, what it kept and whether the
/// candidates were simulated.
void exchange_planning(int max_ranks, int repeat, std::int64_t budget) {
  fmt::print("{:<22} {:>6} {:>9} {:>12} {:>14} {:>10} {:>12} {:>12}\n", "pattern", "ranks",
             "messages", "time (ms)", "kept", "simulated", "predicted", "direct");
  struct Case {
    std::string name;
    int ranks;
    choreo::Pattern pattern;
  };
  std::vector<Case> cases;
  for (int m : {4, 7, 12, 17, 28})
    cases.push_back({fmt::format("scale-free m0=m={}", m), 64,
                     choreo::patterns::scale_free(64, m, m, 64512, 1)});
  for (int n : {1024, 4096}) {
    if (n > max_ranks) continue;
    cases.push_back({"scale-free m0=m=28", n, choreo::patterns::scale_free(n, 28, 28, 64512, 1)});
    cases.push_back({"random D=0.05", n, choreo::patterns::random_density(n, 0.05, 64512, 1)});
  }
  choreo::ExchangeModel model = choreo::ExchangeModel::defaults();
  if (budget >= 0) model.simulation_budget = budget;
  for (const Case& c : cases) {
    choreo::ExchangePlan plan;
    const double t = seconds(repeat, [&] { plan = choreo::plan_exchange(c.pattern, model); });
    fmt::print("{:<22} {:>6} {:>9} {:>12.3f} {:>14} {:>10} {:>12} {:>12}\n", c.name, c.ranks,
               c.pattern.messages.size(), t * 1e3, choreo::to_string(plan.algorithm),
               plan.candidates.front().simulated ? "yes" : "no", plan.predicted_ns, plan.direct_ns);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int max_ranks = 4096, repeat = 1;
  std::int64_t budget = -1;  // the model's own
  bool paper = false, exchange = false;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--max-ranks") == 0 && has_value) {
      max_ranks = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--repeat") == 0 && has_value) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--budget") == 0 && has_value) {
      budget = std::atoll(argv[++i]);
    } else if (std::strcmp(argv[i], "--paper") == 0) {
      paper = true;
    } else if (std::strcmp(argv[i], "--exchange") == 0) {
      exchange = true;
    } else {
      fmt::print(stderr, "{}", kUsage);
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  if (paper) {
    paper_patterns(repeat);
    return 0;
  }
  if (exchange) {
    exchange_planning(max_ranks, repeat, budget);
    return 0;
  }
  fmt::print("{:<24} {:>6} {:>10} {:>7} {:>12} {:>12} {:>8} {:>9} {:>9}\n", "pattern", "ranks",
             "messages", "slots", "delay (s)", "optimal (s)", "ratio", "delays d", "delays o");
  struct Case {
    std::string name;
    int ranks;
    std::function<choreo::Pattern(int)> make;
  };
  const std::vector<Case> cases = {
      {"alltoall", 1024, [](int n) { return choreo::patterns::alltoall(n, 8); }},
      {"scale-free m0=m=28", 1024,
       [](int n) { return choreo::patterns::scale_free(n, 28, 28, 8, 1); }},
      {"random D=0.5", 1024, [](int n) { return choreo::patterns::random_density(n, 0.5, 8, 1); }},
      {"alltoall", 4096, [](int n) { return choreo::patterns::alltoall(n, 8); }},
      {"scale-free m0=m=28", 4096,
       [](int n) { return choreo::patterns::scale_free(n, 28, 28, 8, 1); }},
      {"random D=0.5", 4096, [](int n) { return choreo::patterns::random_density(n, 0.5, 8, 1); }},
  };
  for (const Case& c : cases) {
    if (c.ranks > max_ranks) continue;
    fmt::print(stderr, "{} on {} ranks...\n", c.name, c.ranks);
    const choreo::Pattern p = c.make(c.ranks);
    choreo::SlotPlan optimal;
    const double t_optimal = seconds(repeat, [&] { optimal = choreo::plan_optimal(p); });
    // Delay insertion is O(n^2) a slot: run it where it finishes in reasonable time.
    double t_delay = -1;
    choreo::SlotPlan delay;
    if (c.ranks <= 1024)
      t_delay = seconds(repeat, [&] { delay = choreo::plan_delay_insertion(p); });
    const Shape o = shape(optimal);
    fmt::print("{:<24} {:>6} {:>10} {:>7} {:>12} {:>12.3f} {:>8} {:>9} {:>9}\n", c.name, c.ranks,
               p.messages.size(), o.slots,
               t_delay < 0 ? std::string("-") : fmt::format("{:.3f}", t_delay), t_optimal,
               t_delay < 0 ? std::string("-") : fmt::format("{:.1f}x", t_delay / t_optimal),
               t_delay < 0 ? std::string("-") : fmt::format("{}", shape(delay).delays), o.delays);
  }
}
