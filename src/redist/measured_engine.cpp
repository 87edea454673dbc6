#include "measured_engine.hpp"

#include <algorithm>

namespace choreo::redist {
namespace {

/// The datatype engine must be this much faster to replace the rule's (a tie keeps the rule,
/// which is never the slow one).
constexpr double kRequiredGain = 1.03;

}  // namespace

MeasuredEngine::MeasuredEngine(MPI_Comm comm, const RankPlan& plan, MPI_Datatype base,
                               Method method, int tag, Agreement agreement)
    : comm_(comm),
      base_(base),
      method_(method),
      tag_(tag),
      agreement_(agreement),
      rule_(std::make_unique<MessageEngine>(comm, plan, base, method, tag)) {
  int packs = rule_->stats().pack_sides > 0 ? 1 : 0;
  // Collective: every rank measures if any rank packs, so that all reach the same allreduce.
  if (agreement_ == Agreement::Collective)
    MPI_Allreduce(MPI_IN_PLACE, &packs, 1, MPI_INT, MPI_MAX, comm_);
  if (method == Method::Auto && packs > 0)
    datatype_ = std::make_unique<MessageEngine>(comm, plan, base, Method::Datatype, tag);
}

void MeasuredEngine::rebuild(const RankPlan& plan) {
  if (rule_) rule_ = std::make_unique<MessageEngine>(comm_, plan, base_, method_, tag_);
  if (datatype_)
    datatype_ = std::make_unique<MessageEngine>(comm_, plan, base_, Method::Datatype, tag_);
}

void MeasuredEngine::execute(const void* source, void* target) {
  if (settled()) {
    (rule_ ? rule_ : datatype_)->execute(source, target);
    return;
  }
  // Execute 0 warms up (first touch, MPI's connections); 1-2 time the rule's engine, 3-4
  // the datatype one; the fastest of each pair counts (a scheduler's time slice can land in
  // any one of them).
  const int call = executes_++;
  MessageEngine& engine = call < 3 ? *rule_ : *datatype_;
  const double start = MPI_Wtime();
  engine.execute(source, target);
  const double seconds = MPI_Wtime() - start;
  if (call == 0) return;
  double& fastest = call < 3 ? rule_seconds_ : datatype_seconds_;
  fastest = (call == 1 || call == 3) ? seconds : std::min(fastest, seconds);
  if (call == 4) {
    if (agreement_ == Agreement::Collective) {
      double slowest[2] = {rule_seconds_, datatype_seconds_};
      MPI_Allreduce(MPI_IN_PLACE, slowest, 2, MPI_DOUBLE, MPI_MAX, comm_);
      rule_seconds_ = slowest[0], datatype_seconds_ = slowest[1];
    }
    if (datatype_seconds_ * kRequiredGain < rule_seconds_)
      rule_.reset();
    else
      datatype_.reset();
  }
}

const RedistStats& MeasuredEngine::stats() const { return (rule_ ? rule_ : datatype_)->stats(); }

}  // namespace choreo::redist
