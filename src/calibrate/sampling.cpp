// How the calibration samples a size (detail.hpp): the stopping rule, the batch that makes a
// sample ~100 us long, a ping-pong pair's samples and every rank's at once.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "choreo/model/profile.hpp"
#include "detail.hpp"

namespace choreo::calibration::detail {

bool enough(const std::vector<double>& samples, double elapsed, const Rule& rule) {
  const auto n = static_cast<int>(samples.size());
  if (n >= rule.max_reps) return true;
  if (n < rule.min_reps) return false;
  return relative_ci_half_width(samples) <= rule.rel_ci || elapsed >= rule.size_budget;
}

std::int64_t batch_for(std::int64_t count, double seconds, const Rule& rule) {
  const double ops =
      std::ceil(static_cast<double>(count) * rule.sample_seconds / std::max(seconds, 1e-9));
  return static_cast<std::int64_t>(std::clamp(ops, 1.0, static_cast<double>(kMaxBatch)));
}

void Reporter::step(std::string_view phase, std::size_t i, std::size_t n,
                    std::int64_t bytes) const {
  CalibrationEvent event;
  event.kind = CalibrationEvent::Kind::Size;
  event.phase = phase;
  event.index = i;
  event.count = n;
  event.bytes = bytes;
  report(event);
}

void Reporter::done(std::string_view phase, const std::vector<SizeSamples>& series) const {
  if (!callback_) return;
  CalibrationEvent event;
  event.kind = CalibrationEvent::Kind::PhaseDone;
  event.phase = phase;
  event.count = series.size();
  for (const auto& s : series) event.samples += s.seconds.size();
  event.elapsed = MPI_Wtime() - start_;
  report(event);
}

std::vector<double> sample_pair(const Pair& pair, std::int64_t& batch, double scale,
                                const Rule& rule, const PairBody& body) {
  MPI_Bcast(&batch, 1, MPI_INT64_T, 0, pair.comm);
  if (batch == 0) {
    // Warm-up: one operation, and 15 more when it was cheap (Open MPI's vader BTL, for one,
    // takes a slower path for the first 16 sends to a peer, which must not set the batch).
    int cheap = body(1) < 1e-3;
    MPI_Bcast(&cheap, 1, MPI_INT, 0, pair.comm);
    if (cheap) body(15);
    std::int64_t count = 1;
    for (int more = 1; more; count *= 2) {
      MPI_Barrier(pair.comm);
      double t = body(count);
      MPI_Barrier(pair.comm);
      t = std::min(t, body(count));  // the faster of two: an interruption must not decide
      if (pair.client) {
        more = t < rule.sample_seconds / 2 && count < kMaxBatch;
        if (!more) batch = batch_for(count, t, rule);
      }
      MPI_Bcast(&more, 1, MPI_INT, 0, pair.comm);
    }
    MPI_Bcast(&batch, 1, MPI_INT64_T, 0, pair.comm);
  } else {
    body(batch);  // warm-up
  }
  std::vector<double> samples;
  const double start = MPI_Wtime();
  for (int more = 1; more;) {
    MPI_Barrier(pair.comm);
    const double t = body(batch);
    if (pair.client) {
      samples.push_back(t / static_cast<double>(batch) * scale);
      more = !enough(samples, MPI_Wtime() - start, rule);
    }
    MPI_Bcast(&more, 1, MPI_INT, 0, pair.comm);
  }
  return samples;
}

void spin(double seconds) {
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
}

SizeSamples sample_all_ranks(MPI_Comm comm, std::int64_t bytes, const Rule& rule,
                             const std::function<void(int sample)>& prepare,
                             const std::function<void()>& operation,
                             const std::function<std::string(int sample)>& check,
                             std::string& problem) {
  constexpr int kWarmup = 3;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  SizeSamples samples{bytes, 1, {}};
  const double start = MPI_Wtime();
  for (int sample = 0, more = 1; more; ++sample) {
    prepare(sample);
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    operation();
    const double local = MPI_Wtime() - t0;
    if (problem.empty()) problem = check(sample);
    double slowest = 0;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (sample >= kWarmup && rank == 0) {
      samples.seconds.push_back(slowest);
      more = !enough(samples.seconds, MPI_Wtime() - start, rule);
    }
    MPI_Bcast(&more, 1, MPI_INT, 0, comm);
  }
  return samples;
}

}  // namespace choreo::calibration::detail
