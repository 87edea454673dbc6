// Parameter checks for the jitter study: every message names the parameter and the fix.
#include "choreo/jitter/params.hpp"

#include <fmt/core.h>

#include <cmath>

#include "choreo/core/error.hpp"

namespace choreo::jitter {

namespace {

void check_non_negative(const char* name, double value) {
  if (!std::isfinite(value) || value < 0)
    throw Error(fmt::format("jitter: {} must be a finite number >= 0, not {}", name, value));
}

void check_windows(const char* what, double period, double duration) {
  if (duration == 0) return;
  if (!(period > 0) || !std::isfinite(period))
    throw Error(
        fmt::format("jitter: {} period must be > 0 when its duration is {} s", what, duration));
  if (duration >= period)
    throw Error(fmt::format(
        "jitter: {} duration ({} s) must be shorter than its period ({} s), or no work would "
        "ever run; lower the duration or raise the period",
        what, duration, period));
}

}  // namespace

JitterParams without_noise(JitterParams p) {
  p.os_duration = 0;
  p.net_duration = 0;
  return p;
}

void check(const JitterParams& p) {
  check_non_negative("alpha", p.alpha);
  check_non_negative("beta", p.beta);
  check_non_negative("gamma", p.gamma);
  check_non_negative("bytes", p.bytes);
  check_non_negative("OS jitter duration", p.os_duration);
  check_non_negative("network noise duration", p.net_duration);
  check_windows("OS jitter", p.os_period, p.os_duration);
  // Network noise is Poisson, so its duration may exceed its mean spacing; only the rate
  // must exist.
  if (p.net_duration > 0 && (!(p.net_period > 0) || !std::isfinite(p.net_period)))
    throw Error(fmt::format("jitter: network noise period must be > 0 when its duration is {} s",
                            p.net_duration));
}

void check_ranks(std::int64_t ranks) {
  constexpr std::int64_t kMaxRanks = std::int64_t{1} << 24;
  if (ranks < 2 || ranks > kMaxRanks)
    throw Error(
        fmt::format("jitter: ranks must be between 2 and 2^24 = {}, not {}", kMaxRanks, ranks));
}

}  // namespace choreo::jitter
