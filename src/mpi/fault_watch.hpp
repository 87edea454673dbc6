#pragma once
// Waiting on MPI requests without the risk of waiting forever. A FaultWatch owns a duplicate
// of the run's communicator for fault notices. Its waits poll the requests (MPI_Testsome) and,
// now and then, the clock and a notice receive posted from the start: a rank that sees no
// request complete for `timeout` seconds, or an MPI error, tells every other rank and throws
// choreo::mpi::Fault; a rank that receives the notice throws one too. Each Fault's line says
// what its rank was doing and what it still waits for, so a stuck run ends with one line per
// rank instead of a job someone must kill.
#include <mpi.h>

#include <functional>
#include <span>
#include <string>

#include "choreo/mpi/fault.hpp"

namespace choreo::mpi::detail {

class FaultWatch {
 public:
  /// Collective over `comm`. timeout_seconds <= 0: never time out (MPI errors still count).
  FaultWatch(MPI_Comm comm, double timeout_seconds);
  ~FaultWatch();
  FaultWatch(const FaultWatch&) = delete;
  FaultWatch& operator=(const FaultWatch&) = delete;

  /// Names what the rank does now, for the Fault's line: "iteration 3 (timed)".
  void set_phase(std::string phase) { phase_ = std::move(phase); }

  /// What the rank still waits for, appended to its line when it faults (e.g. "pending: op 3
  /// (recv 8 B from 0 tag 1)"). Empty: nothing beyond the phase.
  using PendingText = std::function<std::string()>;

  /// Like MPI_Waitsome on `requests` (none may be MPI_REQUEST_NULL): waits until at least one
  /// completes and returns how many, their indices and statuses. An error in a status is a Fault
  /// naming `describe(index)` ("op 3 (recv 8 B from 0 tag 1)").
  int wait_some(std::span<MPI_Request> requests, int* indices, MPI_Status* statuses,
                const std::function<std::string(int)>& describe, const PendingText& pending);

  /// Like MPI_Waitall on requests of the watch's own (collectives on control()).
  void wait_all(std::span<MPI_Request> requests, const std::string& what);

  /// The MPI error `code` returned by `call` on this rank: a Fault, after telling the others.
  [[noreturn]] void fail_on_error(int code, const std::string& call, const PendingText& pending);

  /// A duplicate of the run's communicator for the runner's own collectives (barriers,
  /// agreements), waited on with wait_all.
  MPI_Comm control() const { return control_; }

  /// "MPI_ERR_TRUNCATE: message truncated" for an MPI error code.
  static std::string error_text(int code);

 private:
  /// Polls the clock and the notice receive; throws a Fault when either says so.
  void check(double last_progress, const PendingText& pending);
  [[noreturn]] void fail(const std::string& reason, const PendingText& pending);

  MPI_Comm control_ = MPI_COMM_NULL;
  /// Notices and the last barrier of a Fault only: a rank that faults may have left a
  /// collective on control_ pending, so a barrier there could match it.
  MPI_Comm faults_ = MPI_COMM_NULL;
  MPI_Request notice_ = MPI_REQUEST_NULL;
  /// The notice's receive buffer (the rank that failed first). On the heap, and left there
  /// after a Fault: the receive may still be pending when the watch is gone.
  int* notice_from_ = new int(-1);
  int rank_ = 0, size_ = 0;
  double timeout_ = 0;
  bool faulted_ = false;
  std::string phase_;
};

}  // namespace choreo::mpi::detail
