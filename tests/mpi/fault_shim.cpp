// Faults injected under choreo-mpi for its fault tests (issue 20), by LD_PRELOAD and the MPI
// profiling interface, so the tool itself is the one a user runs. CHOREO_TEST_FAULT selects:
//   lose      rank 0's persistent sends go out with tag + 1000: their receives never match,
//             so the run is stuck (what --timeout must end);
//   truncate  rank 1's persistent receives take half their bytes: MPI reports truncation;
//   corrupt   rank 1 flips the first byte of every persistent receive as it completes: the
//             bytes changed in transport, with a schedule that is not to blame.
// Only persistent point-to-point requests are touched: choreo's own collectives stay intact.
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Receive {
  MPI_Request request;
  unsigned char* buffer;
};
std::vector<Receive> receives;

int world_rank() {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

bool fault_is(const char* name) {
  const char* fault = std::getenv("CHOREO_TEST_FAULT");
  return fault && std::strcmp(fault, name) == 0;
}

// A persistent request keeps its handle across starts, so completions are found by handle.
void corrupt_completed(const std::vector<MPI_Request>& before, int count, const int* indices) {
  for (int k = 0; k < count; ++k)
    for (const Receive& receive : receives)
      if (receive.request == before[static_cast<std::size_t>(indices[k])])
        receive.buffer[0] ^= 0xff;
}

}  // namespace

extern "C" {

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  if (fault_is("lose") && world_rank() == 0) tag += 1000;
  return PMPI_Send_init(buf, count, type, dest, tag, comm, request);
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  if (fault_is("truncate") && world_rank() == 1 && count > 1) count /= 2;
  int code = PMPI_Recv_init(buf, count, type, source, tag, comm, request);
  if (fault_is("corrupt") && world_rank() == 1 && count > 0)
    receives.push_back({*request, static_cast<unsigned char*>(buf)});
  return code;
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  if (!fault_is("corrupt") || receives.empty())
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  const std::vector<MPI_Request> before(requests, requests + incount);
  const int code = PMPI_Testsome(incount, requests, outcount, indices, statuses);
  if (*outcount != MPI_UNDEFINED) corrupt_completed(before, *outcount, indices);
  return code;
}

}  // extern "C"

extern "C" int MPI_Start(MPI_Request* request) {
  if (fault_is("die") && world_rank() == 1) std::_Exit(3);
  return PMPI_Start(request);
}
