#pragma once
// How an MPI-4 persistent collective init is served (private): by choreo::persist, by the MPI
// library's own, or by the emulation that posts the nonblocking collective at every start
// (docs/intercept.md, "Persistent collectives"). Shared by the standard inits
// (persistent_init.cpp) and their large-count forms (persistent_init_large.cpp).
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../mpi/mpich_quirks.hpp"
#include "choreo/persist/options.hpp"
#include "choreo/persist/request.hpp"
#include "persistent_kinds.hpp"
#include "runtime.hpp"

namespace choreo::intercept::persistent {

enum class Route : std::uint8_t { Library, Choreo, Emulated };

/// A block size every rank passes alike, or this where the call has none (barrier, v-variants).
constexpr std::int64_t kNoAgreedBytes = -1;

/// Reads that block size from the call's arguments; asked only where choreo could take the
/// call (an intra-communicator, where every argument it reads is significant).
using AgreedBytes = std::function<std::int64_t()>;

/// The route of one init call: serving says the program (not choreo::persist itself) called it;
/// agreed_bytes is the call's block size, or kNoAgreedBytes.
Route route_of(bool serving, bool has_library, bool choreo_takes, std::int64_t agreed_bytes);

/// The bytes of count elements' type signature, which MPI requires to match between the ranks
/// (saturating at INT64_MAX); kNoAgreedBytes for a negative count or an invalid type (the
/// library's call reports it).
std::int64_t signature_bytes(MPI_Count count, MPI_Datatype type);

/// The bytes of `count` elements of a contiguous type (mpi/datatype_layout.hpp), or -1 when
/// the type is not contiguous.
std::int64_t contiguous_bytes(MPI_Count count, MPI_Datatype type);

bool is_inter(MPI_Comm comm);

/// The processes a count or displacement array has an entry for: the group, or on an
/// inter-communicator the remote group.
int peers(MPI_Comm comm);

/// Whether this process's root-only arguments are significant.
bool at_root(MPI_Comm comm, int root);

/// A neighbourhood collective's in- and out-degree on comm's topology.
std::pair<int, int> degrees(MPI_Comm comm);

/// choreo::persist's options from the info hints of an init call that choreo takes:
/// "choreo_algorithm" names the algorithm (as Options::algorithm: "binomial", "ring", ...), and
/// for a broadcast "choreo_torus" = "AxBxC" says the ranks sit on that torus in rank order (x
/// fastest), which maps the trees onto it (docs/persistent.md, "On a torus"). MPI libraries
/// ignore keys they do not know. A malformed or unknown value throws, and the call falls back
/// like any other refusal (ranks passing different hints all refuse alike).
persist::Options persist_options(MPI_Info info);

/// The MPI library's own PMPI_<name> (MPI-4), else Open MPI's PMPIX_<name>; nullptr if it has
/// neither. The library defines neither name itself, so the default lookup finds MPI's.
template <class Function>
Function library_function(const char* name) {
  for (const char* prefix : {"PMPI_", "PMPIX_"}) {
    const std::string symbol = std::string(prefix) + name;
    if (void* found = dlsym(RTLD_DEFAULT, symbol.c_str())) return reinterpret_cast<Function>(found);
  }
  return nullptr;
}

/// Builds choreo's request (its derived datatypes held in the vector it is given), or is empty
/// where choreo does not take the call.
using MakeChoreo = std::function<persist::Request(std::vector<MPI_Datatype>&)>;

/// Serves one init call by its route (see the top of this file).
template <class CallLibrary, class SetUp>
int serve_unguarded(const char* call, MPI_Comm comm, MPI_Request* request, bool has_library,
                    const MakeChoreo& make_choreo, CallLibrary call_library, SetUp set_up,
                    const AgreedBytes& agreed_bytes) {
  has_library = has_library && !choreo::mpi::detail::library_persistent_collectives_broken();
  const bool serving = intercepting();
  std::optional<CallRecord> record;  // CHOREO_REPORT counts the program's calls only
  if (serving) record.emplace(Function::PersistentInit);
  const bool choreo_takes = make_choreo && !is_inter(comm);
  const Route route = route_of(serving, has_library, choreo_takes,
                               choreo_takes && agreed_bytes ? agreed_bytes() : kNoAgreedBytes);
  if (route == Route::Choreo) {
    std::optional<persist::Request> made;
    std::vector<MPI_Datatype> duplicates;
    try {
      ChoreoScope scope;
      made = make_choreo(duplicates);
    } catch (...) {
      // choreo::persist refuses alike on every rank (a non-contiguous type, a non-commutative
      // op), so every rank falls back to the same implementation below.
    }
    if (made) {
      if (record) record->took_choreo();
      return adopt(
          std::make_unique<ChoreoCollective>(call, comm, std::move(*made), std::move(duplicates)),
          request);
    }
    free_types(duplicates);
  }
  if (route != Route::Emulated && has_library) {
    if (record) record->fell_back(Fallback::LibraryPersistent);
    return call_library();
  }
  if (record) record->fell_back(Fallback::EmulatedPersistent);
  auto owned = std::make_unique<Emulated>(call, comm);
  set_up(*owned);
  return adopt(std::move(owned), request);
}

/// serve_unguarded, with no exception crossing the C interface (memory exhausted).
template <class CallLibrary, class SetUp>
int serve(const char* call, MPI_Comm comm, MPI_Request* request, bool has_library,
          const MakeChoreo& make_choreo, CallLibrary call_library, SetUp set_up,
          const AgreedBytes& agreed_bytes = {}) {
  try {
    return serve_unguarded(call, comm, request, has_library, make_choreo, call_library, set_up,
                           agreed_bytes);
  } catch (const std::bad_alloc&) {
    say(std::string(call) + ": out of memory");
    return MPI_ERR_NO_MEM;
  } catch (...) {
    say(std::string(call) + ": an unexpected error");
    return MPI_ERR_OTHER;
  }
}

}  // namespace choreo::intercept::persistent
