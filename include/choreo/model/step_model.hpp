#pragma once
// Paper 001's cost model of a collective algorithm: measured tables instead of formulas,
// steps instead of a critical path, and collisions from the topology.
//
// - A measured quantity (one-way message time, memcpy time) is a table of (bytes, seconds)
//   samples, read between the two nearest samples: t(M) = L_M + alpha_M * M (eq. 1).
// - The communication part is a sum of steps. All ranks start a step together, and a step
//   lasts as long as its slowest message (§IV-A). A step is every message with one tag
//   (choreo's generators use the step number as the tag).
// - Collisions (§V): route every message of a step on the topology; C is the most messages
//   on one link in one direction, and the step is timed as if it moved C * M bytes.
// - The memcpy part: each rank's copies from the memcpy table; the largest rank's sum
//   (paper 001 uses rank 1's, the largest for Bruck). Calc ops (reductions) cost their time.
// - Beyond the paper: the hop latency it names as its small-size error, as seconds per link
//   crossed beyond the calibrated pair's.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "choreo/core/compact_schedule.hpp"
#include "choreo/topo/network.hpp"

namespace choreo::model {

/// Samples (bytes, seconds), read by linear interpolation between the two nearest sizes;
/// outside the samples the nearest segment is extended (never below 0). One sample is a
/// constant.
class PiecewiseLinear {
 public:
  PiecewiseLinear() = default;
  /// Throws choreo::Error unless there is at least one sample, sizes are >= 0 and strictly
  /// ascending, and times are finite and >= 0.
  explicit PiecewiseLinear(std::vector<std::pair<std::int64_t, double>> samples);
  double at(std::int64_t bytes) const;
  const std::vector<std::pair<std::int64_t, double>>& samples() const { return samples_; }

 private:
  std::vector<std::pair<std::int64_t, double>> samples_;
};

struct CostTables {
  /// The time of a step of one message per rank: a ping-pong's one-way time between the
  /// calibrated pair, or a simultaneous exchange among all ranks (`source` says).
  PiecewiseLinear message;
  PiecewiseLinear memcpy;  ///< one memcpy
  /// Where the tables come from: "paper" (ping-pong, cache-defeating memcpy), "collective"
  /// (simultaneous exchange, memcpy of fresh data) or "formula" (Hockney parameters).
  std::string source = "formula";
  /// Seconds per link crossed beyond the links between the calibrated pair (0: hops are
  /// free, as in the paper).
  double hop_latency = 0;
  std::pair<int, int> calibrated_pair{0, 1};  ///< the ranks the message table was measured on
};

struct StepPrediction {
  int tag = 0;                   ///< the step
  int messages = 0;              ///< messages in the step
  std::int64_t bytes = 0;        ///< the largest message M
  int collisions = 1;            ///< C: most messages on one link in one direction (1 if none)
  std::int64_t timed_bytes = 0;  ///< bytes the step is timed with: C * M (see predict())
  int hops = 0;                  ///< most links any message of the step crosses
  double seconds = 0;
};

struct Prediction {
  double seconds = 0;       ///< comm + memcpy + calc
  double comm_seconds = 0;  ///< sum of the steps
  double memcpy_seconds = 0;
  double calc_seconds = 0;
  std::vector<StepPrediction> steps;  ///< ascending tags
};

/// Predicts `schedule` with `tables`. With a network other than ideal, each step is timed as
/// t(heaviest link's bytes), which is C * M when the step's messages are equal; with an ideal
/// network (or `collisions` false) as t(M). Ranks sit on nodes by the network's placement.
Prediction predict(const CompactSchedule& schedule, const CostTables& tables,
                   const NetworkSpec& network, bool collisions = true);

}  // namespace choreo::model
