// How long the schedulers take, side by side: paper 000's delay insertion (the baseline)
// and the optimal edge colouring, on dense and sparse patterns up to 4096 ranks.
//   build/default/bench/choreo-bench-sched [--max-ranks 4096] [--repeat 1]
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "choreo/sched.hpp"

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
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

constexpr const char* kUsage =
    "usage: choreo-bench-sched [--max-ranks N] [--repeat N]\n"
    "  --max-ranks N  skip the cases with more ranks (default 4096)\n"
    "  --repeat N     time each scheduler N times and print the median (default 1)\n";

}  // namespace

int main(int argc, char** argv) {
  int max_ranks = 4096, repeat = 1;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--max-ranks") == 0 && has_value) {
      max_ranks = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--repeat") == 0 && has_value) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else {
      fmt::print(stderr, "{}", kUsage);
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  fmt::print("{:<24} {:>6} {:>10} {:>7} {:>12} {:>12} {:>8}\n", "pattern", "ranks", "messages",
             "slots", "delay (s)", "optimal (s)", "ratio");
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
    if (c.ranks <= 1024) t_delay = seconds(repeat, [&] { choreo::plan_delay_insertion(p); });
    std::size_t slots = 0;
    for (const auto& s : optimal.slots) slots = std::max(slots, s.size());
    fmt::print("{:<24} {:>6} {:>10} {:>7} {:>12} {:>12.3f} {:>8}\n", c.name, c.ranks,
               p.messages.size(), slots,
               t_delay < 0 ? std::string("-") : fmt::format("{:.3f}", t_delay), t_optimal,
               t_delay < 0 ? std::string("-") : fmt::format("{:.1f}x", t_delay / t_optimal));
  }
}
