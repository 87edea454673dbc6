// The rule for T, derived from `choreo jitter sweep` (docs/jitter.md, "Choosing T").
#include "choreo/jitter/auto_t.hpp"

#include <algorithm>
#include <cmath>

#include "choreo/jitter/allreduce.hpp"

namespace choreo::jitter {

int auto_redundant_exchanges(const JitterParams& p, std::int64_t ranks) {
  check(p);
  const int stages = butterfly_stages(ranks);
  const double count = static_cast<double>(ranks);
  const double message = p.message_seconds();
  const double span = stages * (message + p.gamma * p.bytes);  // the noiseless butterfly
  // Expected noise events during the allreduce: ranks whose OS window overlaps it, plus
  // messages that meet a network-noise arrival.
  double events = 0;
  if (p.os_duration > 0) events += count * std::min(1.0, (p.os_duration + span) / p.os_period);
  if (p.net_duration > 0) events += count * stages * message / p.net_period;
  if (events == 0) return 0;  // nothing to hide from
  // Delays shorter than half a message hide behind the messages (the sweeps show no gain);
  // one exchange, the least the paper allows, then costs least.
  if (std::max(p.os_duration, p.net_duration) <= message / 2) return 1;
  // When copies cost their sender a message time each, one exchange was the best T at every
  // point of sweep B-sender-busy: further copies cost more than the rescues they add.
  if (p.redundant_cost == RedundantCost::SenderBusy) return 1;
  // A rank is rescued once one of the 2^T ranks its redundant exchanges reach was not
  // delayed; 2^T >= 2(1 + events) was the smallest T within 0.3% of the best in every swept
  // point.
  const int t = static_cast<int>(std::ceil(std::log2(1 + events))) + 1;
  return std::clamp(t, 1, stages);
}

}  // namespace choreo::jitter
