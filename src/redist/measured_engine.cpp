#include "measured_engine.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "../core/stats.hpp"
#include "mpi_quirks.hpp"

namespace choreo::redist {
namespace {

/// The datatype engine's median must be this much faster to replace the rule's (a tie keeps the
/// rule, which is never the slow one). 20%: Open MPI's datatype path was seen fast through a
/// whole measurement and slow after it (3.7 against 4.7 ms), while where it is truly faster
/// than shared memory (a core per rank, pieces of a hundred bytes or more) it is not by much.
constexpr double kRequiredGain = 1.2;

/// The median of an engine's timed executes (every other one of `seconds`, from `first`).
template <std::size_t N>
double median_of(const std::array<double, N>& seconds, std::size_t first) {
  std::vector<double> mine;
  for (std::size_t k = first; k < N; k += 2) mine.push_back(seconds[k]);
  return stats::median(std::move(mine));
}

}  // namespace

MeasuredEngine::MeasuredEngine(MPI_Comm comm, const RankPlan& plan, MPI_Datatype base,
                               Method method, int tag)
    : comm_(comm), rule_(std::make_unique<MessageEngine>(comm, plan, base, method, tag)) {
  int packs = rule_->stats().pack_sides + rule_->stats().shared_sides > 0 ? 1 : 0;
  // Every rank measures if any rank packs or shares, so that all reach the same allreduce.
  MPI_Allreduce(MPI_IN_PLACE, &packs, 1, MPI_INT, MPI_MAX, comm_);
  // Not where the library mishandles derived datatypes (mpi_quirks.hpp): the same on every rank.
  if (method == Method::Auto && packs > 0 && !derived_datatypes_unsafe())
    datatype_ = std::make_unique<MessageEngine>(comm, plan, base, Method::Datatype, tag);
}

void MeasuredEngine::rebuild(const RankPlan& plan) {
  if (rule_) rule_ = std::make_unique<MessageEngine>(plan, std::move(*rule_));
  if (datatype_) datatype_ = std::make_unique<MessageEngine>(plan, std::move(*datatype_));
}

void MeasuredEngine::execute(const void* source, void* target) {
  if (settled()) {
    (rule_ ? rule_ : datatype_)->execute(source, target);
    return;
  }
  // Executes 0 and 1 warm the two engines up (first touch of buffers and the window, MPI's
  // connections); then they alternate, kSamples times each, each execute after a barrier so
  // that neither is charged for the skew the program left between its ranks. An execute counts
  // its slowest rank's time; each engine's median counts: a scheduler's time slice can land in
  // any one execute, and Open MPI's datatype path is at times fast for a moment (2.8 against
  // its usual 4.6-4.8 ms on one case), which a best-of picked and then lost to the rule.
  const int call = executes_++;
  MessageEngine& engine = call % 2 == 0 ? *rule_ : *datatype_;
  if (call < kWarmups) return engine.execute(source, target);
  MPI_Barrier(comm_);
  const double start = MPI_Wtime();
  engine.execute(source, target);
  seconds_[static_cast<std::size_t>(call - kWarmups)] = MPI_Wtime() - start;
  if (call + 1 < kWarmups + 2 * kSamples) return;
  MPI_Allreduce(MPI_IN_PLACE, seconds_.data(), static_cast<int>(seconds_.size()), MPI_DOUBLE,
                MPI_MAX, comm_);
  if (median_of(seconds_, 1) * kRequiredGain < median_of(seconds_, 0))
    rule_.reset();
  else
    datatype_.reset();
}

const RedistStats& MeasuredEngine::stats() const { return (rule_ ? rule_ : datatype_)->stats(); }

}  // namespace choreo::redist
