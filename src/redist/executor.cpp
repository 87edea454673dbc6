// RedistPlan: this rank's plan and its message engine, on a duplicate of the communicator.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/redist/local_array.hpp"
#include "choreo/redist/mpi.hpp"
#include "measured_engine.hpp"
#include "mpi_check.hpp"

namespace choreo::redist {

struct RedistPlan::State {
  ArrayDistribution from, to;
  RankPlan plan;
  Method method = Method::Auto;
  MPI_Comm comm = MPI_COMM_NULL;
  std::optional<MeasuredEngine> engine;
  RedistStats stats;
  bool settled = false;  ///< stats are the engine's for good (Auto's measurement is over)

  /// The engine's stats with what the plan adds.
  void refresh_stats(double plan_seconds) {
    stats = engine->stats();
    stats.plan_seconds = plan_seconds;
    stats.metadata_bytes += plan.bytes();
    settled = engine->settled();
  }

  ~State() {
    engine.reset();
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

RedistPlan::RedistPlan(MPI_Comm comm, const ArrayDistribution& from, const ArrayDistribution& to,
                       MPI_Datatype base, const RedistOptions& options) {
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  // Every check before any communication, so that every rank throws the same error.
  validate(from, size);
  validate(to, size);
  if (options.tag < 0 || options.tag > 32767)
    throw Error(
        fmt::format("tag {} is outside 0..32767 (the smallest MPI_TAG_UB); pick a tag in "
                    "that range",
                    options.tag));
  if (base == MPI_DATATYPE_NULL)
    throw Error("the base datatype is MPI_DATATYPE_NULL; pass the element type, e.g. MPI_DOUBLE");
  auto state = std::make_unique<State>();
  state->from = from;
  state->to = to;
  state->method = options.method;
  const double start = MPI_Wtime();
  state->plan = plan_rank(from, to, rank);
  const double plan_seconds = MPI_Wtime() - start;
  check_mpi(MPI_Comm_dup(comm, &state->comm), "MPI_Comm_dup");
  state->engine.emplace(state->comm, state->plan, base, options.method, options.tag);
  state->refresh_stats(plan_seconds);
  state_ = std::move(state);
}

RedistPlan::~RedistPlan() = default;
RedistPlan::RedistPlan(RedistPlan&&) noexcept = default;
RedistPlan& RedistPlan::operator=(RedistPlan&&) noexcept = default;

void RedistPlan::execute(const void* source, void* target) {
  if (!state_)
    throw Error("RedistPlan::execute on a moved-from plan; execute the plan it moved to");
  state_->engine->execute(source, target);
  if (!state_->settled && state_->engine->settled())
    state_->refresh_stats(state_->stats.plan_seconds);
}

std::int64_t RedistPlan::source_elements() const {
  return local_storage(state_->from, state_->plan.rank);
}
std::int64_t RedistPlan::target_elements() const {
  return local_storage(state_->to, state_->plan.rank);
}
const RankPlan& RedistPlan::plan() const { return state_->plan; }
const RedistStats& RedistPlan::stats() const { return state_->stats; }
Method RedistPlan::method() const { return state_->method; }

}  // namespace choreo::redist
