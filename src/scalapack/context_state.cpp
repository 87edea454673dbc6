#include "context_state.hpp"

#include <algorithm>
#include <vector>

namespace choreo::scalapack {
namespace {

/// Every state alive, for free_context_states, in the order they were made. BLACS is not
/// thread safe, nor are the redistribution routines: one thread at a time.
std::vector<ContextState*> g_states;

int delete_state(MPI_Comm, int, void* value, void*) {
  auto* state = static_cast<ContextState*>(value);
  g_states.erase(std::remove(g_states.begin(), g_states.end(), state), g_states.end());
  delete state;
  return MPI_SUCCESS;
}

int state_keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &k, nullptr);
    return k;
  }();
  return keyval;
}

template <typename Entry, typename Match>
Entry* find_if(std::list<Entry>& list, Match match) {
  const auto it = std::find_if(list.begin(), list.end(), match);
  if (it == list.end()) return nullptr;
  list.splice(list.begin(), list, it);
  return &list.front();
}

}  // namespace

ContextState::~ContextState() {
  plans.clear();  // the engines use comm
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

ContextState& context_state(int ictxt, std::uint64_t settings_digest) {
  const MPI_Comm context = communicator_of(ictxt);
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(context, state_keyval(), &value, &found);
  if (found != 0) return *static_cast<ContextState*>(value);
  auto state = std::make_unique<ContextState>();
  state->context = context;
  MPI_Comm_dup(context, &state->comm);
  MPI_Comm_rank(state->comm, &state->rank);
  MPI_Comm_size(state->comm, &state->size);
  // The digest and its complement, maximised: equal everywhere iff max == ~max(~x).
  std::array<std::uint64_t, 2> mine{settings_digest, ~settings_digest}, largest{};
  MPI_Allreduce(mine.data(), largest.data(), 2, MPI_UINT64_T, MPI_MAX, state->comm);
  state->settings_agree = largest[0] == ~largest[1];
  MPI_Comm_set_attr(context, state_keyval(), state.get());
  g_states.push_back(state.get());
  return *state.release();
}

void free_context_states() {
  // Oldest first: freeing a plan's window is collective over its node, and any two processes
  // made the contexts they share in the same order (collectively), so they free them alike.
  while (!g_states.empty()) {
    ContextState* state = g_states.front();
    MPI_Comm_delete_attr(state->context, state_keyval());  // runs delete_state
  }
}

GridsEntry* find(std::list<GridsEntry>& list, const GlobalKey& key) {
  return find_if(list, [&](const GridsEntry& e) { return e.key == key; });
}

PlanEntry* find(std::list<PlanEntry>& list, const GlobalKey& key) {
  return find_if(list, [&](const PlanEntry& e) { return e.key == key; });
}

}  // namespace choreo::scalapack
