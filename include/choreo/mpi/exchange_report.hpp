#pragma once
// What a planned irregular exchange looks like, as every rank of it learns: the schedule the
// model chose and what the model predicted (sched/exchange_plan.hpp plans it).
#include <cstdint>

#include "choreo/sched/exchange_plan.hpp"

namespace choreo {

struct ExchangeReport {
  ExchangeAlgorithm algorithm = ExchangeAlgorithm::Direct;  ///< the schedule in use
  std::int64_t delta_ns = 0;      ///< slot length of delay and paced slots (0: none)
  std::int64_t predicted_ns = 0;  ///< the model's time for it
  std::int64_t direct_ns = 0;     ///< the model's time for Direct, MPI_Alltoallv's stand-in
  int slots = 0;                  ///< slotted schedules: the longest rank's plan
  int delays = 0;                 ///< slotted schedules: delay slots before last sends
  int degree_bound = 0;           ///< largest in- or out-degree: no contention-free plan is shorter
  std::int64_t messages = 0;      ///< messages between different ranks
  std::int64_t largest_bytes = 0;  ///< of one message
  bool paced = false;  ///< some rank waits before a send: the ranks start together (a barrier)
  friend bool operator==(const ExchangeReport&, const ExchangeReport&) = default;
};

}  // namespace choreo
