// MPI_Allreduce, MPI_Bcast and MPI_Allgather, intercepted. The allreduce can be paper 004's
// jitter-resilient butterfly (CHOREO_ALLREDUCE=resilient). Every decision here uses only
// what MPI requires to be the same on every rank (counts x type sizes, root, op, datatype for
// reductions, the settings), so the ranks decide alike without communicating.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "../mpi/datatype_layout.hpp"
#include "calls.hpp"
#include "choreo/jitter/auto_t.hpp"
#include "choreo/mpi/resilient_allreduce.hpp"
#include "collective_site.hpp"
#include "comm_state.hpp"
#include "next.hpp"
#include "record.hpp"
#include "type_size.hpp"

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

using mpi::detail::is_contiguous;

/// A communicator the call can run on with choreo, or the reason it cannot.
std::optional<Fallback> unsuitable(const CommState& state) {
  if (state.inter) return Fallback::Intercommunicator;
  if (state.size == 1) return Fallback::SingleRank;
  return std::nullopt;
}

/// Packs `count` elements of `type` at `buffer` into `packed` at `offset` (which has room).
void pack_into(std::vector<std::byte>& packed, std::int64_t offset, const void* buffer, int count,
               MPI_Datatype type, MPI_Comm comm) {
  int position = 0;
  MPI_Pack(buffer, count, type, packed.data() + offset,
           static_cast<int>(packed.size() - static_cast<std::size_t>(offset)), &position, comm);
}

void unpack_from(const std::vector<std::byte>& packed, void* buffer, int count, MPI_Datatype type,
                 MPI_Comm comm) {
  int position = 0;
  MPI_Unpack(packed.data(), static_cast<int>(packed.size()), &position, buffer, count, type, comm);
}

}  // namespace
}  // namespace choreo::intercept

using namespace choreo::intercept;

namespace {

int serve_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm) {
  auto mpi = [&] { return next::Allreduce(sendbuf, recvbuf, count, type, op, comm); };
  if (!intercepting()) return mpi();
  CallRecord record(Function::Allreduce);
  if (auto reason = blanket_reason(Function::Allreduce, record))
    return record.hand_over(*reason, mpi);
  if (comm == MPI_COMM_NULL || type == MPI_DATATYPE_NULL || op == MPI_OP_NULL) return mpi();
  return guarded(record, mpi, [&]() -> int {
    int size = 0;
    PMPI_Type_size(type, &size);
    const std::int64_t bytes = static_cast<std::int64_t>(count) * size;
    if (record.timing()) record.bytes(bytes);
    const Config& config = runtime().config;
    if (config.allreduce == AllreduceChoice::Mpi) return record.hand_over(Fallback::Disabled, mpi);
    CommState& state = state_of(comm);
    if (auto reason = unsuitable(state)) return record.hand_over(*reason, mpi);
    if (!predefined(op)) return record.hand_over(Fallback::UnsupportedOp, mpi);
    if (config.allreduce == AllreduceChoice::Resilient) {
      record.took_choreo();
      const int t = redundant_exchanges(bytes, state.size);
      ChoreoScope scope;
      choreo::resilient_allreduce(sendbuf, recvbuf, count, type, op, comm, t);
      return MPI_SUCCESS;
    }
    if (auto reason = auto_mode_declines(false)) return record.hand_over(*reason, mpi);
    // The same datatype on every rank (MPI requires it for reductions): a rank alone may
    // decide by its layout. Command lists reduce contiguous vectors.
    if (!is_contiguous(type)) return record.hand_over(Fallback::UnsupportedDatatype, mpi);
    bool hit = false;
    CollectiveEntry& entry =
        collective_entry(state, {Function::Allreduce, bytes, count, 0, op, type}, hit);
    if (count == 0 || !entry.choice.choreo) return record.hand_over(Fallback::NoGain, mpi);
    record.took_choreo();
    record.cache(hit);
    ChoreoScope scope;
    run_collective(state, entry, {recvbuf, sendbuf == MPI_IN_PLACE ? nullptr : sendbuf}, type, op);
    return MPI_SUCCESS;
  });
}

int serve_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  auto mpi = [&] { return next::Bcast(buffer, count, type, root, comm); };
  if (!intercepting()) return mpi();
  CallRecord record(Function::Bcast);
  if (auto reason = blanket_reason(Function::Bcast, record)) return record.hand_over(*reason, mpi);
  if (comm == MPI_COMM_NULL || type == MPI_DATATYPE_NULL || count < 0) return mpi();
  return guarded(record, mpi, [&]() -> int {
    const std::int64_t bytes = static_cast<std::int64_t>(count) * type_size(type);
    if (record.timing()) record.bytes(bytes);
    CommState& state = state_of(comm);
    if (auto reason = unsuitable(state)) return record.hand_over(*reason, mpi);
    if (root < 0 || root >= state.size) return mpi();  // MPI reports the error
    if (auto reason = auto_mode_declines(false)) return record.hand_over(*reason, mpi);
    bool hit = false;
    CollectiveEntry& entry = collective_entry(state, {Function::Bcast, bytes, 0, root}, hit);
    if (bytes == 0 || !entry.choice.choreo) return record.hand_over(Fallback::NoGain, mpi);
    record.took_choreo();
    record.cache(hit);
    ChoreoScope scope;
    // The type may differ between ranks (only the signatures must match): one that is not
    // contiguous goes through a packed copy.
    if (is_contiguous(type)) {
      run_collective(state, entry, {buffer, nullptr}, MPI_BYTE, MPI_OP_NULL);
      return MPI_SUCCESS;
    }
    std::vector<std::byte>& packed = state.collectives.packed;
    packed.resize(static_cast<std::size_t>(bytes));
    if (state.rank == root) pack_into(packed, 0, buffer, count, type, comm);
    run_collective(state, entry, {packed.data(), nullptr}, MPI_BYTE, MPI_OP_NULL);
    if (state.rank != root) unpack_from(packed, buffer, count, type, comm);
    return MPI_SUCCESS;
  });
}

int serve_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto mpi = [&] {
    return next::Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  if (!intercepting()) return mpi();
  CallRecord record(Function::Allgather);
  if (auto reason = blanket_reason(Function::Allgather, record))
    return record.hand_over(*reason, mpi);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (comm == MPI_COMM_NULL || recvtype == MPI_DATATYPE_NULL || recvcount < 0 ||
      (!in_place && (sendtype == MPI_DATATYPE_NULL || sendcount < 0)))
    return mpi();
  return guarded(record, mpi, [&]() -> int {
    // One rank's block: the same on every rank (MPI requires matching signatures).
    const std::int64_t block = in_place
                                   ? static_cast<std::int64_t>(recvcount) * type_size(recvtype)
                                   : static_cast<std::int64_t>(sendcount) * type_size(sendtype);
    if (record.timing()) record.bytes(block);
    CommState& state = state_of(comm);
    if (auto reason = unsuitable(state)) return record.hand_over(*reason, mpi);
    if (auto reason = auto_mode_declines(false)) return record.hand_over(*reason, mpi);
    bool hit = false;
    CollectiveEntry& entry = collective_entry(state, {Function::Allgather, block}, hit);
    if (block == 0 || !entry.choice.choreo) return record.hand_over(Fallback::NoGain, mpi);
    record.took_choreo();
    record.cache(hit);
    ChoreoScope scope;
    if (is_contiguous(recvtype) && (in_place || is_contiguous(sendtype))) {
      run_collective(state, entry, {recvbuf, in_place ? nullptr : sendbuf}, MPI_BYTE, MPI_OP_NULL);
      return MPI_SUCCESS;
    }
    // Blocks in a packed copy: this rank's packed in, everyone's unpacked out.
    std::vector<std::byte>& packed = state.collectives.packed;
    packed.resize(static_cast<std::size_t>(block * state.size));
    const std::int64_t mine = block * state.rank;
    if (in_place) {
      MPI_Aint lower_bound = 0, extent = 0;
      PMPI_Type_get_extent(recvtype, &lower_bound, &extent);
      pack_into(packed, mine,
                static_cast<const std::byte*>(recvbuf) +
                    static_cast<MPI_Aint>(state.rank) * recvcount * extent,
                recvcount, recvtype, comm);
    } else {
      pack_into(packed, mine, sendbuf, sendcount, sendtype, comm);
    }
    run_collective(state, entry, {packed.data(), nullptr}, MPI_BYTE, MPI_OP_NULL);
    unpack_from(packed, recvbuf, recvcount * state.size, recvtype, comm);
    return MPI_SUCCESS;
  });
}

}  // namespace

// The program's calls: recorded under CHOREO_RECORD (record.hpp), then served as above.

extern "C" int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  return record::collective(
      choreo::trace::Collective::Allreduce, comm,
      [&] { return serve_allreduce(sendbuf, recvbuf, count, type, op, comm); },
      [&](choreo::trace::Event& e) { e.collective_bytes = record::bytes(count, type); });
}

extern "C" int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return record::collective(
      choreo::trace::Collective::Bcast, comm,
      [&] { return serve_bcast(buffer, count, type, root, comm); },
      [&](choreo::trace::Event& e) {
        e.root = root;
        e.collective_bytes = record::bytes(count, type);
      });
}

extern "C" int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return record::collective(
      choreo::trace::Collective::Allgather, comm,
      [&] {
        return serve_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&](choreo::trace::Event& e) {
        e.collective_bytes = sendbuf == MPI_IN_PLACE ? record::bytes(recvcount, recvtype)
                                                     : record::bytes(sendcount, sendtype);
      });
}
