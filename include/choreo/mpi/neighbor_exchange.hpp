#pragma once
// NeighborExchange: a persistent, scheduled MPI_Alltoallv for irregular many-to-many
// communication (paper 000, "delay insertion", and beyond). It has the arguments of
// MPI_Alltoallv and the life cycle of MPI-4's MPI_Alltoallv_init: buffers, counts and
// displacements are bound at construction; start() and wait() (or test()) then run the
// exchange as often as needed.
//
// Construction is collective over the communicator: rank 0 gathers every rank's sends, plans
// the pattern with the algorithm asked for (Auto: the schedule the model predicts fastest,
// sched/exchange_plan.hpp) and sends every rank its own part; each rank then makes persistent
// requests for its receives and sends. start() posts the receives and the sends due at once,
// and returns; test() and wait() start each later send when its time has come (a paced plan
// waits on a clock, after a barrier begun by start()).
//
//   choreo::NeighborExchange exchange(comm, send, send_counts, send_displs, MPI_DOUBLE,
//                                     recv, recv_counts, recv_displs, MPI_DOUBLE);
//   for (int step = 0; step < steps; ++step) {
//     fill(send);
//     exchange.start();
//     exchange.wait();
//     use(recv);
//   }
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "choreo/mpi/exchange_report.hpp"
#include "choreo/sched/exchange_plan.hpp"

namespace choreo {

struct NeighborExchangeOptions {
  /// MPI tag of every message. The exchange runs on its own duplicate of the communicator,
  /// so it never matches the caller's messages whatever the tag; 0x6368 ("ch") fits the
  /// smallest MPI_TAG_UB the standard allows (32767). Must be the same on every rank.
  static constexpr int kDefaultTag = 0x6368;

  ExchangeAlgorithm algorithm = ExchangeAlgorithm::Auto;  ///< must be the same on every rank
  /// What the planner predicts with, and the slot length of delay and paced slots (the time of
  /// one message of the pattern's largest size through a port). Only rank 0's is read.
  /// ExchangeModel::from_profile(read_profile("machine.json")) uses a calibrated machine.
  ExchangeModel model = ExchangeModel::defaults();
  int tag = kDefaultTag;
};

class NeighborExchange {
 public:
  using Algorithm = ExchangeAlgorithm;
  using Options = NeighborExchangeOptions;

  /// Collective over `comm` (an intracommunicator of n ranks). The arguments are those of
  /// MPI_Alltoallv: each count and displacement array has n entries; counts are in elements
  /// of the datatype, and the data for rank j starts at buffer + displacement[j] * extent of
  /// the datatype. Buffers must stay valid, and must not be touched between start() and
  /// wait(), for the object's lifetime. MPI_IN_PLACE is not supported.
  ///
  /// Rank i's send bytes to j (count x type size) must equal rank j's receive bytes from i;
  /// when they do not, or an argument is invalid on any rank, every rank throws the same
  /// choreo::Error naming the problem (none is left waiting). Zero-byte messages are
  /// skipped, as MPI_Alltoallv skips them.
  ///
  /// Cost: rank 0 holds the whole pattern while it plans (16 bytes a message); every other
  /// rank only ever holds its own messages and O(n) counts. Afterwards each rank keeps its own
  /// requests and the report. Use it for exchanges that repeat.
  NeighborExchange(MPI_Comm comm, const void* send_buffer, const int send_counts[],
                   const int send_displacements[], MPI_Datatype send_type, void* recv_buffer,
                   const int recv_counts[], const int recv_displacements[], MPI_Datatype recv_type,
                   const Options& options = {});

  /// Frees the requests and the duplicate communicator (MPI_Comm_free: destroy it on every
  /// rank, before MPI_Finalize). Destroy it after wait(): if it is still active, its receives
  /// are cancelled and its sends freed without waiting (MPI then still reads the send buffer
  /// until those sends are matched).
  ~NeighborExchange();
  NeighborExchange(NeighborExchange&&) noexcept;
  NeighborExchange& operator=(NeighborExchange&&) noexcept;
  NeighborExchange(const NeighborExchange&) = delete;
  NeighborExchange& operator=(const NeighborExchange&) = delete;

  /// Posts every receive and the sends due at once (all of them for an unpaced plan) and
  /// returns; a paced plan also begins a barrier (MPI_Ibarrier). Throws choreo::Error if the
  /// exchange is already started.
  void start();
  /// Starts the remaining sends on time and waits until every send and receive of this rank
  /// completed. Throws choreo::Error if the exchange was not started.
  void wait();
  /// Completes what has arrived without blocking; true (and inactive again) once every send
  /// and receive of this rank completed. Throws choreo::Error if the exchange was not started.
  bool test();
  /// True between start() and wait().
  bool active() const;

  /// The schedule in use: "direct", "ring", "delay", "optimal" or "optimal-paced".
  std::string_view algorithm() const;
  /// The plan as the model saw it, the same on every rank.
  const ExchangeReport& report() const;

 private:
  struct State;
  /// The state, or a choreo::Error naming `operation` if this object was moved from.
  State& state(const char* operation) const;
  std::unique_ptr<State> state_;
};

}  // namespace choreo
