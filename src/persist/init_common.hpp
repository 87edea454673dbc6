#pragma once
// What every *_init call does around its own plan (private): checks that fail on every
// rank alike, the agreement that all ranks passed the same arguments, and the request.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "choreo/persist/options.hpp"
#include "choreo/persist/request.hpp"
#include "driver.hpp"
#include "library_collective.hpp"
#include "plan.hpp"

namespace choreo::persist::detail {

/// Runs check on every rank; if it throws choreo::Error anywhere, every rank throws the
/// first rank's message (so no rank is left waiting in the next collective).
void on_every_rank(MPI_Comm comm, const std::function<void()>& check);

/// This rank and the size of comm.
struct Ranks {
  int rank = 0, size = 1;
};
Ranks ranks_of(MPI_Comm comm);

/// The size of one element; throws unless the type is contiguous (extent == size, lb 0).
int contiguous_size(const char* call, MPI_Datatype type);

/// The size of one element of any datatype whose packed form (MPI_Pack) is its data back to
/// back, as on every homogeneous MPI; throws for MPI_DATATYPE_NULL, an empty type or another
/// packed form. Data-moving collectives take such types (the driver packs them, Layout).
int element_size(const char* call, MPI_Datatype type);

/// How the driver moves `count` elements of `type`: in place (no Layout type) when contiguous,
/// else packed where `input` and unpacked where `output`. Throws if count exceeds MPI's int.
Layout layout_of(const char* call, MPI_Datatype type, std::int64_t count, bool input, bool output);

/// Throws unless the MPI threading level allows options.engine (the thread engine needs
/// MPI_THREAD_MULTIPLE, or SERIALIZED with options.allow_serialized).
void check_thread_level(const char* call, const Options& options);

/// Throws unless op is a commutative op: choreo's reductions combine in an order that depends
/// on the rank. `algorithm` ("the binomial tree", ...) and `mpi_call` ("MPI_Reduce_init") name
/// what refuses and what to use instead.
void check_commutative_op(const char* call, MPI_Op op, std::string_view algorithm,
                          std::string_view mpi_call);

/// Throws unless root is a rank of a communicator of `ranks` ranks.
void check_root(const char* call, int root, int ranks);

/// Throws unless count >= 0 and count * element_size fits 64 bits; returns the bytes.
std::int64_t checked_bytes(const char* call, std::int64_t count, int element_size);

/// Every rank must pass the same value for each named field; otherwise every rank throws
/// an error naming the first field that differs.
using Fields = std::vector<std::pair<std::string_view, std::int64_t>>;
void agree_between_ranks(const char* call, MPI_Comm comm, const Fields& fields);

/// A stable number for bytes (FNV-1a), so ranks can compare names and arrays in agree.
std::int64_t fingerprint(std::span<const std::byte> bytes);
std::int64_t name_fingerprint(std::string_view name);

/// Throws unless every tag of the plan is at most the MPI library's MPI_TAG_UB.
void check_tags(const char* call, const Plan& plan, MPI_Comm comm);

/// The request: duplicates comm (its tags then meet no other traffic) and creates every
/// persistent point-to-point request. Collective.
/// The MPI library's own collective on the request's own communicator.
using LibraryFactory = std::function<std::unique_ptr<LibraryCollective>(MPI_Comm own)>;

/// With `rival`, the plan competes with the library's collective over the first starts.
Request make_request(Plan plan, UserBuffers buffers, MPI_Comm comm, MPI_Datatype type, MPI_Op op,
                     const Options& options, const LibraryFactory& rival = {});
/// The request that runs only the MPI library's own collective; `plan` names it. Collective.
Request make_library_request(Plan plan, MPI_Comm comm, const LibraryFactory& make);

/// `algorithm` if set, else fallback; throws unless it is one of `known`.
std::string chosen_algorithm(const char* call, const Options& options, std::string fallback,
                             const std::vector<std::string>& known);

/// How a collective with an algorithm of choreo's and the MPI library's own ("mpi") runs: the
/// named one, or by default choreo's measured against the library's own over the first starts
/// (commands engine only, LibraryTrial), the faster kept.
struct Way {
  std::string algorithm;
  bool measured = false;
  std::string choice;  ///< for Plan::choice
};
/// `fallback` is the default algorithm (`described`, e.g. "the binomial tree"); options may name
/// it or "mpi". Throws on another name.
Way way_of(const char* call, const Options& options, const std::string& fallback,
           const std::string& described);

/// The request once every rank agreed on `way`: the library's own collective, or the plan
/// (made on every rank, tags checked), with the library's as its rival when measured.
/// `collective` names it ("gather", ...). Collective.
Request request_by_way(const char* call, const Way& way, const std::string& collective,
                       const std::function<Plan()>& make_plan, UserBuffers buffers, MPI_Comm comm,
                       MPI_Datatype type, MPI_Op op, const Options& options,
                       const LibraryFactory& library);

/// `library` where a call's `bytes` (agreed by every rank: each rank decides alike) fit MPI's
/// int count, as the MPI library's own collective takes one here; else none: not measured,
/// and request_by_way refuses "mpi".
LibraryFactory library_within_int(std::int64_t bytes, LibraryFactory library);

/// "named by the caller" when options name an algorithm, else `rule` (for Plan::choice).
std::string named_or(const Options& options, std::string rule);

}  // namespace choreo::persist::detail
