// MPI_Allreduce, MPI_Bcast and MPI_Allgather, intercepted. The allreduce can be paper 004's
// jitter-resilient butterfly (CHOREO_ALLREDUCE=resilient). Every decision here uses only
// what MPI requires to be the same on every rank (counts x type sizes, root, op, datatype for
// reductions, the settings), so the ranks decide alike without communicating.
#include <mpi.h>

#include <algorithm>
#include <array>

#include "calls.hpp"
#include "choreo/jitter/auto_t.hpp"
#include "choreo/mpi/resilient_allreduce.hpp"
#include "comm_state.hpp"

namespace choreo::intercept {
namespace {

/// MPI's predefined reduction ops (user-defined ops may not commute, and their handles need
/// not be the same on every rank).
bool predefined(MPI_Op op) {
  const std::array<MPI_Op, 12> ops = {MPI_SUM,  MPI_PROD, MPI_MAX,    MPI_MIN,
                                      MPI_LAND, MPI_LOR,  MPI_LXOR,   MPI_BAND,
                                      MPI_BOR,  MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

/// Paper 004's T: CHOREO_ALLREDUCE=resilient:T=k, else its rule (docs/jitter.md) for this
/// vector and rank count under the rule's default noise, the model's latency and bandwidth.
int redundant_exchanges(std::int64_t bytes, int ranks) {
  int stages = 0;
  while ((2 << stages) <= ranks) ++stages;
  const int asked = runtime().config.resilient_t;
  if (asked >= 0) return std::min(asked, stages);
  jitter::JitterParams p;
  const sim::LogGOPS& m = runtime().model.params;
  p.alpha = static_cast<double>(m.L + 2 * m.o) * 1e-9;
  p.beta = std::max(m.G, 1e-3) * 1e-9;
  p.bytes = static_cast<double>(std::max<std::int64_t>(bytes, 1));
  return std::min(jitter::auto_redundant_exchanges(p, ranks), stages);
}

/// Why the model-driven path does not take this call (until it exists for the function).
Fallback model_path_reason() {
  return runtime().config.profile_path.empty() && runtime().config.mode == Mode::Auto
             ? Fallback::NoProfile
             : Fallback::NoAlgorithm;
}

}  // namespace
}  // namespace choreo::intercept

using namespace choreo::intercept;

extern "C" int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  auto mpi = [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); };
  if (!intercepting()) return mpi();
  CallRecord record(Function::Allreduce);
  if (auto reason = blanket_reason(Function::Allreduce)) {
    record.fell_back(*reason);
    return mpi();
  }
  if (comm == MPI_COMM_NULL || type == MPI_DATATYPE_NULL || op == MPI_OP_NULL) return mpi();
  return guarded(record, mpi, [&] {
    int size = 0;
    PMPI_Type_size(type, &size);
    const std::int64_t bytes = static_cast<std::int64_t>(count) * size;
    if (record.timing()) record.bytes(bytes);
    const Config& config = runtime().config;
    if (config.allreduce == AllreduceChoice::Mpi) {
      record.fell_back(Fallback::Disabled);
      return mpi();
    }
    CommState& state = state_of(comm);
    if (state.inter) {
      record.fell_back(Fallback::Intercommunicator);
      return mpi();
    }
    if (state.size == 1) {
      record.fell_back(Fallback::SingleRank);
      return mpi();
    }
    if (!predefined(op)) {
      record.fell_back(Fallback::UnsupportedOp);
      return mpi();
    }
    if (config.allreduce == AllreduceChoice::Resilient) {
      record.took_choreo();
      const int t = redundant_exchanges(bytes, state.size);
      ChoreoScope scope;
      choreo::resilient_allreduce(sendbuf, recvbuf, count, type, op, comm, t);
      return MPI_SUCCESS;
    }
    record.fell_back(model_path_reason());
    return mpi();
  });
}

extern "C" int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  auto mpi = [&] { return PMPI_Bcast(buffer, count, type, root, comm); };
  if (!intercepting()) return mpi();
  CallRecord record(Function::Bcast);
  if (auto reason = blanket_reason(Function::Bcast)) {
    record.fell_back(*reason);
    return mpi();
  }
  if (record.timing() && type != MPI_DATATYPE_NULL) {
    int size = 0;
    PMPI_Type_size(type, &size);
    record.bytes(static_cast<std::int64_t>(count) * size);
  }
  record.fell_back(model_path_reason());
  return mpi();
}

extern "C" int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto mpi = [&] {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  if (!intercepting()) return mpi();
  CallRecord record(Function::Allgather);
  if (auto reason = blanket_reason(Function::Allgather)) {
    record.fell_back(*reason);
    return mpi();
  }
  if (record.timing() && recvtype != MPI_DATATYPE_NULL) {
    int size = 0;
    PMPI_Type_size(recvtype, &size);
    record.bytes(static_cast<std::int64_t>(recvcount) * size);
  }
  record.fell_back(model_path_reason());
  return mpi();
}
