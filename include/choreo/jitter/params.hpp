#pragma once
// The cost and noise parameters of paper 004's allreduce simulation (Matsumoto and Suda),
// in seconds and bytes. A message costs alpha + beta*N plus network noise; a reduction costs
// gamma*N plus OS jitter.
#include <cstdint>

namespace choreo::jitter {

/// How a rank's time moves from one butterfly stage to the next.
enum class Coupling {
  /// A rank can reduce only once its partner's data has arrived: max(own, partner's) + costs.
  /// This is what an allreduce does, and the default.
  Exchange,
  /// Each rank adds up its own receive and compute times without waiting for its partner,
  /// as section 4.1.2 of the paper literally describes its simulator ("per processor, add
  /// the receive and compute times of every exchange"). Kept to compare with the paper.
  Independent,
};

/// What the T redundant exchanges cost the sender.
enum class RedundantCost {
  /// The paper's model: no CPU time and no OS jitter, only alpha + beta*N + network noise.
  Free,
  /// The paper's future work: each copy keeps its sender's CPU busy for alpha + beta*N,
  /// stretched by OS jitter; a rank sends its copies one after another and finishes only
  /// when it holds the result and its last copy has left.
  SenderBusy,
};

struct JitterParams {
  double alpha = 1e-6;   ///< network latency (s)
  double beta = 1e-9;    ///< seconds per byte on the network (1 GB/s)
  double gamma = 1e-10;  ///< seconds per byte of reduction (10 GB/s memory)
  double bytes = 8;      ///< N, the vector each rank contributes

  double os_period = 1e-3;     ///< OS jitter: one window of os_duration every os_period
  double os_duration = 1e-5;   ///< 0 turns OS jitter off
  double net_period = 1e-3;    ///< network noise: mean time between Poisson arrivals
  double net_duration = 1e-5;  ///< delay each arrival adds to a message in flight; 0 turns it off

  Coupling coupling = Coupling::Exchange;
  RedundantCost redundant_cost = RedundantCost::Free;

  /// alpha + beta*bytes: the paper's Tcomm.
  double message_seconds(double message_bytes) const { return alpha + beta * message_bytes; }
  double message_seconds() const { return message_seconds(bytes); }
};

/// The same parameters with both noise sources off (for the noiseless reference time).
JitterParams without_noise(JitterParams p);

/// Throws choreo::Error naming the first bad parameter and how to fix it.
void check(const JitterParams& p);

/// Throws choreo::Error unless 2 <= ranks <= 2^24 (the simulator keeps a few doubles per rank).
void check_ranks(std::int64_t ranks);

}  // namespace choreo::jitter
