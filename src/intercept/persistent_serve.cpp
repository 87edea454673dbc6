#include "persistent_serve.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "../mpi/datatype_layout.hpp"
#include "choreo/core/error.hpp"
#include "choreo/topo/platform.hpp"

namespace choreo::intercept::persistent {
namespace {

/// Where the library has persistent collectives that work, the default takes choreo's for
/// blocks of at least this many bytes: there choreo's trees, measured against the library's
/// own over the first starts, were 0.33-1.05x Open MPI's MPIX_X_init (reduce 0.33-0.43x,
/// reduce_scatter 0.35-0.57x, scatter 0.71-0.87x, allreduce 0.76-1.05x), while below it the
/// layers of choreo's request cost 0.1-0.5 us and the library's own is kept (docs/BENCHMARKS.md,
/// persistent_mpi4_bench.sh).
constexpr std::int64_t kChoreoOverLibraryFromBytes = std::int64_t{64} << 10;

}  // namespace

Route route_of(bool serving, bool has_library, bool choreo_takes, std::int64_t agreed_bytes) {
  // choreo::persist's own calls (its measurement against the library's broadcast) and programs
  // the library does not serve get the library's function.
  if (!serving) return has_library ? Route::Library : Route::Emulated;
  const Config& config = runtime().config;
  const PersistentChoice choice = config.persistent;
  // Auto: choreo's where the library has no persistent collective that works (choreo's measures
  // itself against the nonblocking collective the emulation would post), and for large blocks
  // (above); MPI-4 lets an init synchronise, as choreo's does (docs/intercept.md). The block
  // size is one all ranks agree on, so all take the same route.
  const bool choreo_wanted = choice == PersistentChoice::Choreo ||
                             (choice == PersistentChoice::Auto &&
                              (!has_library || agreed_bytes >= kChoreoOverLibraryFromBytes));
  if (choreo_wanted && choreo_takes && config.enabled(Function::PersistentInit))
    return Route::Choreo;
  if (choice == PersistentChoice::Nonblocking || !has_library) return Route::Emulated;
  return Route::Library;
}

std::int64_t signature_bytes(MPI_Count count, MPI_Datatype type) {
  int size = 0;
  if (count < 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
    return kNoAgreedBytes;
  if (size > 0 && count > INT64_MAX / size) return INT64_MAX;  // saturates
  return static_cast<std::int64_t>(count) * size;
}

std::int64_t contiguous_bytes(MPI_Count count, MPI_Datatype type) {
  return choreo::mpi::detail::is_contiguous(type) ? signature_bytes(count, type) : -1;
}

bool is_inter(MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return inter != 0;
}

/// The processes a count or displacement array has an entry for: the group, or on an
/// inter-communicator the remote group.
int peers(MPI_Comm comm) {
  int size = 0;
  if (is_inter(comm))
    PMPI_Comm_remote_size(comm, &size);
  else
    PMPI_Comm_size(comm, &size);
  return size;
}

/// Whether this process's root-only arguments are significant.
bool at_root(MPI_Comm comm, int root) {
  if (is_inter(comm)) return root == MPI_ROOT;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank == root;
}

/// A neighbourhood collective's in- and out-degree on comm's topology.
std::pair<int, int> degrees(MPI_Comm comm) {
  int kind = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &kind);
  if (kind == MPI_CART) {
    int dims = 0;
    PMPI_Cartdim_get(comm, &dims);
    return {2 * dims, 2 * dims};
  }
  if (kind == MPI_GRAPH) {
    int rank = 0, neighbours = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &neighbours);
    return {neighbours, neighbours};
  }
  if (kind == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    return {in, out};
  }
  return {0, 0};  // no topology: MPI reports the error when the collective is posted
}

/// choreo::persist's options from the info hints of an init call that choreo takes:
/// "choreo_algorithm" names the algorithm (as Options::algorithm: "binomial", "ring", ...), and
/// for a broadcast "choreo_torus" = "AxBxC" says the ranks sit on that torus in rank order (x
/// fastest), which maps the trees onto it (docs/persistent.md, "On a torus"). MPI libraries
/// ignore keys they do not know. A malformed or unknown value throws, and the call falls back
/// like any other refusal (ranks passing different hints all refuse alike).
persist::Options persist_options(MPI_Info info) {
  persist::Options options;
  if (info == MPI_INFO_NULL) return options;
  const auto hint = [info](const char* key) -> std::optional<std::string> {
    char value[256] = {};
    int found = 0;
    PMPI_Info_get(info, key, static_cast<int>(sizeof value) - 1, value, &found);
    if (!found) return std::nullopt;
    return std::string(value);
  };
  if (const auto algorithm = hint("choreo_algorithm")) options.algorithm = *algorithm;
  if (const auto torus = hint("choreo_torus")) {
    const std::vector<int> dims = choreo::parse_torus_dims(*torus);
    if (dims.size() > 3)
      throw choreo::Error("choreo_torus '" + *torus + "': at most three dimensions");
    for (std::size_t d = 0; d < 3; ++d) options.torus[d] = d < dims.size() ? dims[d] : 1;
  }
  return options;
}

}  // namespace choreo::intercept::persistent
