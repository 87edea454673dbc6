#include "comm_state.hpp"

#include <algorithm>
#include <mutex>

#include "runtime.hpp"

namespace choreo::intercept {
namespace {

/// Every state alive, so that MPI_Finalize can delete those MPI would not (it deletes the
/// attributes of MPI_COMM_SELF only, not those of MPI_COMM_WORLD).
std::mutex registry_mutex;
std::vector<CommState*> registry;

constexpr int kAlltoallvTag = 1;
constexpr int kNeighborTag = 2;

}  // namespace

CommState& state_of(MPI_Comm comm) {
  const int keyval = runtime().comm_keyval;
  void* attribute = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, keyval, &attribute, &found);
  if (found) return *static_cast<CommState*>(attribute);
  auto* state = new CommState;
  state->user = comm;
  PMPI_Comm_test_inter(comm, &found);
  state->inter = found != 0;
  PMPI_Comm_rank(comm, &state->rank);
  PMPI_Comm_size(comm, &state->size);  // the local group's, for an intercommunicator
  state->alltoallv.tag = kAlltoallvTag;
  state->neighbor.tag = kNeighborTag;
  PMPI_Comm_set_attr(comm, keyval, state);
  const std::lock_guard lock(registry_mutex);
  registry.push_back(state);
  return *state;
}

MPI_Comm private_comm_of(CommState& state) {
  // A split, not MPI_Comm_dup: a duplicate would run the program's attribute copy callbacks.
  if (state.private_comm == MPI_COMM_NULL)
    PMPI_Comm_split(state.user, 0, state.rank, &state.private_comm);
  return state.private_comm;
}

int delete_comm_state(MPI_Comm, int, void* attribute, void*) {
  auto* state = static_cast<CommState*>(attribute);
  {
    const std::lock_guard lock(registry_mutex);
    registry.erase(std::remove(registry.begin(), registry.end(), state), registry.end());
  }
  {
    ChoreoScope scope;  // freeing requests and the duplicate are choreo's own calls
    state->alltoallv.exchange.abandon();
    state->neighbor.exchange.abandon();
    state->collectives.cache.clear();  // the drivers free their requests
    if (state->private_comm != MPI_COMM_NULL) PMPI_Comm_free(&state->private_comm);
  }
  delete state;
  return MPI_SUCCESS;
}

void delete_all_comm_states() {
  std::vector<MPI_Comm> comms;
  {
    const std::lock_guard lock(registry_mutex);
    for (const CommState* state : registry) comms.push_back(state->user);
  }
  // Deleting the attribute runs delete_comm_state, which leaves the registry.
  for (MPI_Comm comm : comms) PMPI_Comm_delete_attr(comm, runtime().comm_keyval);
}

}  // namespace choreo::intercept
