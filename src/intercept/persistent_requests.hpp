#pragma once
// Persistent collective requests that the library itself runs (persistent_init.cpp): emulated
// ones on an MPI library without the MPI-4 functions, and choreo::persist's under
// CHOREO_PERSISTENT=choreo. Each gets a real MPI handle, a persistent send to MPI_PROC_NULL that
// is never started, so MPI itself takes it for an inactive request (an empty status, complete
// at once) wherever a call reaches it; the completion functions below run the collective behind
// it and hand every other request to MPI. Requests the MPI library made itself (its own
// MPI_Bcast_init, Open MPI's MPIX_Bcast_init) never enter this registry.
#include <mpi.h>

#include <memory>

namespace choreo::intercept::persistent {

/// One persistent collective run by the library.
class Owned {
 public:
  explicit Owned(const char* call, MPI_Comm comm) : call_(call), comm_(comm) {}
  virtual ~Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;

  /// Starts one instance; an MPI error code.
  virtual int start() = 0;
  /// Moves the started instance on; sets finished once it completed. An MPI error code.
  virtual int progress(bool& finished) = 0;
  /// Blocks until the started instance completed (MPI_Wait on one request): by default
  /// progress() until finished; a kind that can block inside MPI does so. An MPI error code.
  virtual int finish() {
    bool finished = false;
    while (!finished)
      if (const int code = progress(finished); code != MPI_SUCCESS) return code;
    return MPI_SUCCESS;
  }
  /// Releases what the instance holds (the request is inactive).
  virtual int release() { return MPI_SUCCESS; }

  const char* call() const { return call_; }
  MPI_Comm comm() const { return comm_; }
  bool active = false;
  bool done = false;  ///< completed but not yet reported by a wait or test

 private:
  const char* call_;  // "MPI_Bcast_init": for error messages
  MPI_Comm comm_;
};

/// Makes the handle for `owned` and registers it; an MPI error code.
int adopt(std::unique_ptr<Owned> owned, MPI_Request* handle);

/// Whether any request is registered: the one check a program without them pays.
bool any();

// The MPI completion and request functions with the registered requests served here; every
// other request goes to the MPI library (next.hpp). record_p2p.cpp and record_wait.cpp call
// these in place of next::.
int Start(MPI_Request* request);
int Startall(int count, MPI_Request requests[]);
int Request_free(MPI_Request* request);
int Request_get_status(MPI_Request request, int* flag, MPI_Status* status);
int Wait(MPI_Request* request, MPI_Status* status);
int Test(MPI_Request* request, int* flag, MPI_Status* status);
int Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]);
int Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status);
int Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status);
int Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]);
int Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]);

}  // namespace choreo::intercept::persistent
