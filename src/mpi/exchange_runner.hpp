#pragma once
// Runs one rank's part of a planned exchange (sched/exchange_plan.hpp) on MPI point-to-point
// requests (private to choreo's MPI libraries). start() posts every receive and the sends due
// at once and returns; test() and wait() start each later send when its time has come, on a
// clock: paced schedules wait microseconds, and nanosleep costs ~77 us here even for 1 us.
// Used by NeighborExchange (persistent requests, made once) and by the interposition library
// (requests made at each call, for the buffers of that call).
#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

namespace choreo::mpi::detail {

/// One message of a rank's exchange, in the caller's buffers.
struct MessageBuffer {
  void* address = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int peer = 0;
};

/// Nanoseconds on the clock paced sends wait on (MPI_Wtime under SMPI, whose clock is
/// simulated; a steady clock elsewhere).
std::int64_t exchange_clock_ns();

class PacedExchange {
 public:
  PacedExchange() = default;
  PacedExchange(const PacedExchange&) = delete;
  PacedExchange& operator=(const PacedExchange&) = delete;
  ~PacedExchange();

  /// Persistent: makes one request per message now (MPI_Recv_init / MPI_Send_init); every
  /// start() then starts them. `not_before_ns[k]` belongs to sends[k] (same length). With
  /// `synchronize` (collective: the same on every rank of comm), each start also begins an
  /// MPI_Ibarrier and the clock of not_before starts when it completes, so that paced sends of
  /// different ranks line up as the plan assumed (paper 000 starts with a barrier).
  void bind_persistent(MPI_Comm comm, int tag, std::span<const MessageBuffer> receives,
                       std::span<const MessageBuffer> sends,
                       std::span<const std::int64_t> not_before_ns, bool synchronize);
  /// Starts the bound persistent requests.
  void start();
  /// One-shot: posts MPI_Irecv for every receive and MPI_Isend for the sends due now; the
  /// spans are copied (the buffers they point to must stay valid until completion).
  void start(MPI_Comm comm, int tag, std::span<const MessageBuffer> receives,
             std::span<const MessageBuffer> sends, std::span<const std::int64_t> not_before_ns,
             bool synchronize);

  /// Starts the sends whose time has come; true once every request completed.
  bool test();
  /// Starts the remaining sends on time (polling MPI meanwhile) and completes everything.
  void wait();
  bool active() const { return active_; }

  /// Local: cancels what can be cancelled of an active exchange and completes it (used when
  /// an owner is destroyed mid-exchange), then frees persistent requests.
  void abandon() noexcept;

 private:
  /// Takes the messages of an exchange (no request is made or started).
  void take(MPI_Comm comm, int tag, std::span<const MessageBuffer> receives,
            std::span<const MessageBuffer> sends, std::span<const std::int64_t> not_before_ns,
            bool synchronize, bool persistent);
  /// Posts the receives (and the barrier) of a started exchange and the sends due at once.
  void begin();
  /// False while the barrier of a synchronised start is under way.
  bool passed_gate();
  void start_due_sends();
  void start_send(std::size_t index);
  void free_requests() noexcept;

  bool persistent_ = false;
  bool synchronize_ = false;
  MPI_Request gate_ = MPI_REQUEST_NULL;  ///< the barrier of a synchronised start
  bool active_ = false;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int tag_ = 0;
  std::vector<MessageBuffer> sends_;  ///< one-shot: the sends still to start
  std::vector<std::int64_t> not_before_;
  std::vector<MPI_Request> requests_;  ///< receives first, then sends in order
  std::size_t receive_count_ = 0;
  std::size_t next_send_ = 0;
  std::int64_t start_ns_ = 0;
};

}  // namespace choreo::mpi::detail
