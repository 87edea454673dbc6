#include "persistent_kinds.hpp"

#include <exception>
#include <string>

#include "next.hpp"
#include "runtime.hpp"

namespace choreo::intercept::persistent {
namespace {

/// Runs one call into choreo::persist: its MPI calls go straight to MPI (ChoreoScope), and an
/// exception becomes one line and MPI_ERR_OTHER, since it must not cross the C interface.
template <class Body>
int guarded(const char* call, Body body) {
  try {
    ChoreoScope scope;
    body();
    return MPI_SUCCESS;
  } catch (const std::exception& error) {
    say(std::string(call) + ": " + error.what());
    return MPI_ERR_OTHER;
  }
}

}  // namespace

MPI_Datatype held_type(MPI_Datatype type, std::vector<MPI_Datatype>& duplicates) {
  if (type == MPI_DATATYPE_NULL) return type;
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
  if (combiner == MPI_COMBINER_NAMED) return type;
  MPI_Datatype copy = MPI_DATATYPE_NULL;
  if (PMPI_Type_dup(type, &copy) != MPI_SUCCESS) return type;
  duplicates.push_back(copy);
  return copy;
}

void free_types(std::vector<MPI_Datatype>& duplicates) {
  for (MPI_Datatype& type : duplicates) PMPI_Type_free(&type);
  duplicates.clear();
}

const MPI_Datatype* Emulated::hold(const MPI_Datatype* types, int count) {
  if (types == nullptr) return nullptr;
  std::vector<MPI_Datatype> held(types, types + (count > 0 ? count : 0));
  for (MPI_Datatype& type : held) type = hold(type);
  return keep(held.data(), static_cast<int>(held.size()));
}

int Emulated::release() {
  free_types(duplicates_);
  return MPI_SUCCESS;
}

int Emulated::progress(bool& finished) {
  int flag = 0;
  const int code = next::Test(&inner_, &flag, MPI_STATUS_IGNORE);
  finished = flag != 0;
  return code;
}

int Emulated::finish() { return next::Wait(&inner_, MPI_STATUS_IGNORE); }

int ChoreoCollective::finish() {
  return guarded(call(), [&] { request_.wait(); });
}

int ChoreoCollective::start() {
  return guarded(call(), [&] { request_.start(); });
}

int ChoreoCollective::progress(bool& finished) {
  return guarded(call(), [&] { finished = request_.test(); });
}

int ChoreoCollective::release() {
  const int code = guarded(call(), [&] { request_.free(); });
  free_types(duplicates_);
  return code;
}

}  // namespace choreo::intercept::persistent
