#pragma once
// Intercepted MPI_Alltoallv and MPI_Neighbor_alltoallv ("exchanges"): persistent by
// detection. Each rank fingerprints its own counts at every call and keeps the plans of the
// patterns it has seen (a small cache). What must be the same on every rank, whether a call
// runs choreo's point-to-point schedule or MPI's own collective, changes only at checkpoints:
// calls whose numbers every rank knows alike (the 1st, 2nd, 3rd, 5th, 9th, ... call on the
// communicator), where the ranks agree in one small allreduce and, when a pattern is new,
// plan it together (exchange_setup.hpp). Between checkpoints a rank decides alone: a cache
// hit runs the cached schedule, a miss (its counts changed) runs its messages in ring order.
// Either way it sends and receives exactly its own messages, so data is right whatever the
// other ranks' caches hold; only the order, hence the speed, depends on the plan. Which way a
// pattern runs (the plan, the plain exchange or MPI's own call) is measured, one short window
// each, and the fastest kept (exchange_choice.hpp).
#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "../mpi/exchange_runner.hpp"
#include "exchange_choice.hpp"
#include "function_ref.hpp"
#include "report.hpp"

namespace choreo::intercept {

struct CommState;
class CallRecord;

/// One rank's arguments of an MPI_Alltoallv-like call. Block k of each side goes to (comes
/// from) peer k, or to send_peers[k] (from recv_peers[k]) when those are given (the
/// neighbours of a topology; MPI_PROC_NULL blocks move nothing).
struct ExchangeArgs {
  const void* sendbuf = nullptr;
  const int* sendcounts = nullptr;
  const int* sdispls = nullptr;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;
  const int* recvcounts = nullptr;
  const int* rdispls = nullptr;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  int send_blocks = 0, recv_blocks = 0;
  const int* send_peers = nullptr;
  const int* recv_peers = nullptr;

  bool in_place() const { return sendbuf == MPI_IN_PLACE; }
  int send_peer(int block) const { return send_peers ? send_peers[block] : block; }
  int recv_peer(int block) const { return recv_peers ? recv_peers[block] : block; }
};

/// A pattern this rank has seen, with its part of the plan.
struct ExchangeEntry {
  // The key: this rank's counts and type sizes.
  std::uint64_t hash = 0;
  int send_size = 0, recv_size = 0;
  std::vector<int> send_counts, recv_counts;
  // The plan: blocks in the order to post and start them.
  bool choreo_wins = true;  ///< the model's verdict against MPI's own call
  ExchangeAlgorithm algorithm = ExchangeAlgorithm::Direct;  ///< the plan's schedule
  CandidateTimes times;  ///< agreed measurements of the ways to run it
  bool paced = false;    ///< the plan waits between sends: ranks start together
  /// Planned with paper 000's closed-form model only (a new pattern's first call must be
  /// quick); planned again with the simulator once every rank has seen the pattern again.
  bool provisional = false;
  std::vector<int> receive_blocks;
  std::vector<int> send_blocks;
  std::vector<std::int64_t> not_before;
  std::uint64_t last_use = 0;
};

struct ExchangeSite {
  int tag = 1;  ///< of this site's messages on the communicator's private duplicate
  std::uint64_t calls = 0;
  std::uint64_t next_checkpoint = 0;
  std::uint64_t interval = 1;
  Candidate running = Candidate::Mpi;  ///< how calls run until the next checkpoint
  Fallback mpi_reason = Fallback::NoGain;
  bool barrier = false;  ///< start every choreo call with a barrier (a paced plan is in use)
  // The calls since the last checkpoint on the pattern it decided for, timed.
  std::uint64_t window_hash = 0;
  std::int64_t window_ns = 0, window_timed = 0;
  int builds_without_reuse = 0;
  // Since the last checkpoint: calls, and calls whose counts repeated one of the last few.
  std::uint64_t window_calls = 0, window_repeats = 0;
  std::array<std::uint64_t, 8> recent_hashes{};
  std::size_t recent_next = 0;
  std::vector<ExchangeEntry> cache;
  // Reused from call to call, so that a cache hit allocates nothing.
  std::vector<mpi::detail::MessageBuffer> receives, sends;
  std::vector<std::int64_t> not_before;
  std::vector<std::byte> in_place_copy;
  std::vector<int> order;
  mpi::detail::PacedExchange exchange;
};

/// One intercepted exchange on `state`'s communicator: runs it with choreo and returns
/// MPI_SUCCESS, or returns `mpi()` (MPI's own call). `cannot` is a local reason this rank
/// cannot take choreo's path (agreed at checkpoints).
int run_exchange(CommState& state, ExchangeSite& site, const ExchangeArgs& args,
                 std::optional<Fallback> cannot, IntFunctionRef mpi, CallRecord& record);

}  // namespace choreo::intercept
