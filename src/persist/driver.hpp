#pragma once
// Runs a Plan over and over (private): the persistent point-to-point requests are created
// once, in the constructor; an instance is begin(), then poll() or finish() until done.
// Whoever calls these (the caller's thread or the progress thread) is the only one touching
// the driver while an instance runs.
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "plan.hpp"

namespace choreo::persist::detail {

/// How a user buffer of a non-contiguous datatype is moved: the plan runs on its packed bytes
/// (MPI_Pack's format, checked at init to be the elements' data back to back), packed before
/// the first command where the buffer is an input and unpacked after the last where it is an
/// output. The default (no type) is a contiguous buffer, used in place.
struct Layout {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int count = 0;
  bool input = false, output = false;
};

struct UserBuffers {
  void* user = nullptr;        ///< bcast buf, allreduce/allgather recvbuf
  const void* send = nullptr;  ///< allreduce/allgather sendbuf (nullptr: in place)
  Layout user_layout = {}, send_layout = {};
};

class Driver {
 public:
  /// type and op are used by reductions only. comm is the request's own communicator.
  Driver(Plan plan, UserBuffers buffers, MPI_Comm comm, MPI_Datatype type, MPI_Op op);
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;
  ~Driver();

  /// The initial copy, then every command without dependencies (the first wave).
  void begin();
  /// Completes what has completed without blocking and starts what it released; true
  /// when the instance is done.
  bool poll();
  /// Blocks until the instance is done.
  void finish();

  const Plan& plan() const { return plan_; }
  std::size_t request_count() const;

 private:
  std::byte* address(const Place& place);
  void run_ready();
  void complete(std::uint32_t command);
  /// A Copy command, skipped where a buffer is absent (MPI_IN_PLACE).
  void copy(const Command& command);
  /// Packs the non-contiguous inputs before the first command; unpacks the outputs once the
  /// last completed.
  void pack_inputs();
  void unpack_outputs();
  void retire(int finished_count);
  /// A flat plan's messages have all completed.
  void complete_all();

  Plan plan_;
  UserBuffers buffers_;
  std::vector<std::byte> scratch_;
  MPI_Comm comm_;
  /// The packed images of buffers with a Layout (else empty) and their duplicated types.
  std::vector<std::byte> user_packed_, send_packed_;
  MPI_Datatype type_;
  MPI_Op op_;
  int type_size_ = 1;                  // the reduction type's extent
  std::vector<MPI_Request> requests_;  ///< per command; MPI_REQUEST_NULL for reductions and,
                                       ///< between instances, a flat plan's
  // State of the running instance.
  std::vector<std::uint32_t> waiting_;
  std::vector<std::uint32_t> ready_;
  std::vector<MPI_Request> active_;   ///< handles of started requests, for Testsome/Waitsome
  std::vector<std::uint32_t> owner_;  ///< active_[k] belongs to command owner_[k]
  std::vector<int> finished_;
  std::size_t completed_ = 0;
  /// No command waits for another or releases one, and none reduces (a neighbourhood exchange,
  /// a tree's leaf, a 2-rank gather's root with its own block's copy): the messages are posted
  /// as MPI_Irecv and MPI_Isend and the copies made at begin(), and one MPI_Waitall or
  /// MPI_Testall completes them, with no persistent request and no bookkeeping per command.
  bool flat_ = false;
};

}  // namespace choreo::persist::detail
