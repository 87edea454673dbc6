#pragma once
// NeighborExchange: a persistent, scheduled MPI_Alltoallv for irregular many-to-many
// communication (paper 000, "delay insertion"). It has the arguments of MPI_Alltoallv and the
// life cycle of MPI-4's MPI_Alltoallv_init: buffers, counts and displacements are bound at
// construction; start() and wait() then run the exchange as often as needed.
//
// Construction is collective over the communicator: every rank learns the whole pattern,
// every rank runs the same scheduler on it, and each rank builds persistent requests for its
// own receives and for its sends in the plan's slot order. start() posts all receives, then
// starts the sends one slot after another, sleeping `delay_ns` in each delay slot (paper
// 000's Fig. 4); wait() completes them.
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
#include <string>

#include "choreo/sched.hpp"
#include "choreo/sched/exchange_plan.hpp"

namespace choreo {

struct NeighborExchangeOptions {
  /// MPI tag of every message. The exchange runs on its own duplicate of the communicator,
  /// so it never matches the caller's messages whatever the tag; 0x6368 ("ch") fits the
  /// smallest MPI_TAG_UB the standard allows (32767). Must be the same on every rank.
  static constexpr int kDefaultTag = 0x6368;

  ExchangeAlgorithm algorithm = ExchangeAlgorithm::Auto;  ///< must be the same on every rank
  std::int64_t delay_ns = 400000;  ///< length of a delay slot; paper 000's delta = 400 us
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
  /// Cost: every rank stores the n x n byte matrix (8 n^2 bytes: 8 MB at 1024 ranks) while
  /// scheduling, and runs the scheduler on the whole pattern; afterwards it keeps only its
  /// own requests and the plan's report. Use it for exchanges that repeat.
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

  /// Posts every receive, then starts the sends in slot order with the plan's delays; local
  /// (not a barrier). Throws choreo::Error if the exchange is already started.
  void start();
  /// Waits until every send and receive of this rank completed. Throws choreo::Error if the
  /// exchange was not started.
  void wait();
  /// Completes what has arrived without blocking; true (and inactive again) once every send
  /// and receive of this rank completed. Throws choreo::Error if the exchange was not started.
  bool test();
  /// True between start() and wait().
  bool active() const;

  /// The scheduler that made the plan: "direct", "ring", "delay-insertion" or "optimal".
  const std::string& algorithm() const;
  /// The whole plan, as paper 000 reports it: slots, delays, contention, predicted time
  /// (SlotModel's default LogGP parameters), the same on every rank. For Direct it is the
  /// ring plan whose order Direct starts its sends in.
  const PlanReport& report() const;

 private:
  struct State;
  /// The state, or a choreo::Error naming `operation` if this object was moved from.
  State& state(const char* operation) const;
  std::unique_ptr<State> state_;
};

}  // namespace choreo
