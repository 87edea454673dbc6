// How close and how fast the open-shop scheduler is on unequal sizes: makespan against the
// port bound (largest bytes through one port) and the time plan_open_shop takes, on random
// and scale-free patterns with sizes uniform in [1 KiB, 1 MiB], at 256 and 1024 ranks.
//   build/default/bench/choreo-bench-open-shop [--max-ranks 1024]
#include <fmt/core.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "choreo/sched/schedulers.hpp"

int main(int argc, char** argv) {
  int max_ranks = 1024;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--max-ranks") == 0) max_ranks = std::atoi(argv[i + 1]);
  struct Case {
    std::string name;
    int ranks;
    std::function<choreo::Pattern(int)> make;
  };
  using choreo::patterns::random_density, choreo::patterns::scale_free;
  auto sized = [](choreo::Pattern p) {
    return choreo::patterns::with_random_sizes(std::move(p), 1024, 1 << 20, 1);
  };
  std::vector<Case> cases;
  for (int n : {256, 1024}) {
    cases.push_back(
        {"random D=0.1", n, [&](int r) { return sized(random_density(r, 0.1, 0, 1)); }});
    cases.push_back(
        {"random D=0.5", n, [&](int r) { return sized(random_density(r, 0.5, 0, 1)); }});
    cases.push_back(
        {"scale-free m0=m=28", n, [&](int r) { return sized(scale_free(r, 28, 28, 0, 1)); }});
  }
  fmt::print("{:<20} {:>6} {:>9} {:>16} {:>16} {:>9} {:>9}\n", "pattern (1K-1M B)", "ranks",
             "messages", "port bound (B)", "makespan (B)", "ratio", "time (s)");
  for (const Case& c : cases) {
    if (c.ranks > max_ranks) continue;
    fmt::print(stderr, "{} on {} ranks...\n", c.name, c.ranks);
    const choreo::Pattern p = c.make(c.ranks);
    const auto start = std::chrono::steady_clock::now();
    const choreo::TimedPlan plan = choreo::plan_open_shop(p);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    choreo::check_timed_plan(p, plan);
    const std::int64_t bound = choreo::port_bytes_lower_bound(p);
    const std::int64_t makespan = choreo::makespan_bytes(p, plan);
    fmt::print("{:<20} {:>6} {:>9} {:>16} {:>16} {:>9.4f} {:>9.3f}\n", c.name, c.ranks,
               p.messages.size(), bound, makespan,
               static_cast<double>(makespan) / static_cast<double>(bound), seconds);
  }
}
