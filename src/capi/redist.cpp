// The C API of choreo::redist::RedistPlan (include/choreo/redist/mpi.hpp): distributions in
// the command line's text forms, a persistent plan, execute, free.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <vector>

#include "boundary.hpp"
#include "choreo/redist/mpi.hpp"
#include "choreo/redist/scalapack.hpp"

struct choreo_redist {
  choreo::redist::RedistPlan plan;
};

namespace {

using choreo::capi::guarded;
using choreo::capi::on_handle;
using choreo::capi::require;
namespace redist = choreo::redist;

/// `text` read for an array of `shape` on a communicator of `ranks`. A ScaLAPACK descriptor
/// carries its own extents: they must be the caller's, or the caller's arrays would be wrong.
redist::ArrayDistribution distribution_of(const char* name, const char* text,
                                          const std::vector<std::int64_t>& shape, int ranks) {
  require(text, name);
  redist::ArrayDistribution dist = redist::parse_any_distribution(text, shape, ranks);
  if (dist.shape != shape)
    throw choreo::Error(fmt::format("{} '{}' describes an array of {} but shape[] is {}", name,
                                    text, fmt::join(dist.shape, "x"), fmt::join(shape, "x")));
  return dist;
}

}  // namespace

extern "C" {

int choreo_redist_create(MPI_Comm comm, int ndims, const int64_t shape[], const char* from,
                         const char* to, MPI_Datatype base, choreo_redist_t** redist) noexcept {
  return guarded("choreo_redist_create", CHOREO_ERR_ARG, [&] {
    if (redist != nullptr) *redist = nullptr;
    choreo::capi::require_communicator(comm);
    int ranks = 0;
    MPI_Comm_size(comm, &ranks);
    redist::ArrayDistribution source, target;
    choreo::capi::on_every_rank(comm, [&] {
      require(redist, "redist (where the handle goes)");
      if (ndims < 1)
        throw choreo::Error(fmt::format("ndims is {}; an array has at least 1 dimension", ndims));
      require(shape, "shape");
      if (base == MPI_DATATYPE_NULL)
        throw choreo::Error("base is MPI_DATATYPE_NULL; pass the element type, e.g. MPI_DOUBLE");
      const std::vector<std::int64_t> extents(shape, shape + ndims);
      source = distribution_of("from", from, extents, ranks);
      target = distribution_of("to", to, extents, ranks);
    });
    *redist = new choreo_redist{redist::RedistPlan(comm, source, target, base)};
  });
}

int choreo_redist_local_elements(const choreo_redist_t* redist, int64_t* source_elements,
                                 int64_t* target_elements) noexcept {
  return on_handle("choreo_redist_local_elements", CHOREO_ERR_ARG, redist, "redist",
                   [&](const choreo_redist& r) {
                     if (source_elements != nullptr) *source_elements = r.plan.source_elements();
                     if (target_elements != nullptr) *target_elements = r.plan.target_elements();
                   });
}

int choreo_redist_execute(choreo_redist_t* redist, const void* source, void* target) noexcept {
  // RedistPlan::execute checks that a rank holding data got its arrays.
  return on_handle("choreo_redist_execute", CHOREO_ERR_ARG, redist, "redist",
                   [&](choreo_redist& r) { r.plan.execute(source, target); });
}

int choreo_redist_free(choreo_redist_t** redist) noexcept {
  return choreo::capi::free_handle("choreo_redist_free", redist, [](choreo_redist&) {});
}

}  // extern "C"
