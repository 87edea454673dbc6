#include "pdgemr2d.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/redist/local_array.hpp"

// BLACS and ScaLAPACK (libscalapack-mpich / libscalapack-openmpi): C BLACS and Fortran
// ScaLAPACK entry points.
extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridmap(int* context, int* usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja,
               const int* desca, double* b, const int* ib, const int* jb, const int* descb,
               const int* ictxt);
}

namespace choreo::bench {
namespace {

using redist::ArrayDistribution;

/// A BLACS grid holding `dist` exactly, and this rank's descriptor for it.
struct Side {
  int context = -1;
  std::array<int, 9> desc{};
};

int to_int(std::int64_t v) {
  if (v < 0 || v > 2147483647) throw Error(fmt::format("{} does not fit ScaLAPACK's int", v));
  return static_cast<int>(v);
}

Side make_side(const ArrayDistribution& dist, int rank) {
  if (dist.shape.size() != 2)
    throw Error(fmt::format("pdgemr2d redistributes matrices; {} has {} dimensions",
                            redist::to_string(dist), dist.shape.size()));
  const redist::BlockCyclicDim rows = redist::resolve_dim(dist, 0),
                               cols = redist::resolve_dim(dist, 1);
  std::vector<int> usermap(static_cast<std::size_t>(rows.procs * cols.procs));
  for (int position = 0; position < redist::grid_size(dist); ++position) {
    const std::vector<int> c = redist::proc_coords(dist, position);
    usermap[static_cast<std::size_t>(c[0] + c[1] * rows.procs)] = redist::rank_at(dist, position);
  }
  Side side;
  Cblacs_get(0, 0, &side.context);
  Cblacs_gridmap(&side.context, usermap.data(), rows.procs, rows.procs, cols.procs);
  const int position = redist::position_of(dist, rank);
  std::int64_t lld = 1;
  if (position >= 0) {
    lld = dist.layout.leading_dim > 0
              ? dist.layout.leading_dim
              : std::max<std::int64_t>(1, redist::local_extents(dist, position)[0]);
  } else {
    side.context = -1;  // not in this grid: pdgemr2d reads CTXT = -1
  }
  side.desc = {1,
               position >= 0 ? side.context : -1,
               to_int(dist.shape[0]),
               to_int(dist.shape[1]),
               to_int(rows.block),
               to_int(cols.block),
               rows.first_proc,
               cols.first_proc,
               to_int(lld)};
  return side;
}

}  // namespace

struct Pdgemr2d::State {
  Side from, to;
  int all = -1;  ///< a context holding every rank, as pdgemr2d's last argument needs
  int m = 0, n = 0;
};

Pdgemr2d::Pdgemr2d(const ArrayDistribution& from, const ArrayDistribution& to)
    : state_(std::make_unique<State>()) {
  int rank = 0, size = 0;
  Cblacs_pinfo(&rank, &size);
  state_->from = make_side(from, rank);
  state_->to = make_side(to, rank);
  Cblacs_get(0, 0, &state_->all);
  Cblacs_gridinit(&state_->all, "Row", 1, size);
  state_->m = to_int(from.shape[0]);
  state_->n = to_int(from.shape[1]);
}

Pdgemr2d::~Pdgemr2d() {
  for (int context : {state_->from.context, state_->to.context, state_->all})
    if (context >= 0) Cblacs_gridexit(context);
}

void Pdgemr2d::execute(const double* source, double* target) {
  const int one = 1;
  pdgemr2d_(&state_->m, &state_->n, source, &one, &one, state_->from.desc.data(), target, &one,
            &one, state_->to.desc.data(), &state_->all);
}

}  // namespace choreo::bench
