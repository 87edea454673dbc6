#pragma once
// The two noise sources of paper 004 and the random numbers behind them. Uniform draws are
// made by hand from std::mt19937_64 (whose sequence the standard fixes) rather than through
// std:: distributions (whose algorithms each standard library chooses), so a seed gives the
// same study with libstdc++, libc++ or MSVC.
#include <cstdint>
#include <random>
#include <vector>

#include "choreo/jitter/params.hpp"

namespace choreo::jitter {

/// A uniform double in [0, 1) from the top 53 bits of one draw.
double uniform01(std::mt19937_64& rng);

/// The random state of one trial: the generator and each real rank's OS jitter phase, drawn
/// first, rank 0 to P-1, so every algorithm simulated with the same seed and trial meets the
/// same jitter windows.
struct Trial {
  std::mt19937_64 rng;
  std::vector<double> phase;  ///< start of each rank's first jitter window, in [0, os_period)
};

/// Trial `index` of a study seeded with `seed` (the two are mixed with splitmix64).
Trial make_trial(const JitterParams& p, std::int64_t ranks, std::uint64_t seed,
                 std::uint64_t index);

/// When `work` seconds of CPU that become ready at `start` end on a rank whose jitter windows
/// are [phase + k*period, phase + k*period + duration). Work waits for a running window, even
/// work of 0 s (as choreo sim's OS detours do); it is then suspended by every window it meets.
double os_finish(const JitterParams& p, double phase, double start, double work);

/// Network noise for messages of one size: the number of Poisson arrivals (rate 1/net_period)
/// during the message's alpha + beta*N, each adding net_duration.
class NetworkNoise {
 public:
  NetworkNoise(const JitterParams& p, double message_seconds);
  /// One message's extra delay; draws one uniform when noise is on, none when it is off.
  double delay(std::mt19937_64& rng) const;

 private:
  double mean_arrivals_ = 0;
  double none_probability_ = 1;  ///< exp(-mean_arrivals_): the common case, tested first
  double duration_ = 0;
};

}  // namespace choreo::jitter
