#pragma once
// ScaLAPACK's own redistribution, p?gemr2d, on the same matrices as choreo's: a 2-D choreo
// ArrayDistribution becomes a BLACS grid (Cblacs_gridmap with the distribution's own ranks)
// and a descriptor (MB = the block size: cyclic = 1, block = ceil(N/p), `*` = the whole extent
// on a grid dimension of 1). The baseline of bench/redist_vs_pdgemr2d and of the MPI test that
// compares both results.
#include <memory>

#include "choreo/redist/distribution.hpp"

namespace choreo::bench {

/// pdgemr2d from one distribution to another, set up once (BLACS contexts and descriptors) and
/// run many times. Collective over MPI_COMM_WORLD (BLACS's system context): every rank builds
/// it with the same distributions. Throws choreo::Error for anything not 2-D.
class Pdgemr2d {
 public:
  Pdgemr2d(const redist::ArrayDistribution& from, const redist::ArrayDistribution& to);
  ~Pdgemr2d();
  Pdgemr2d(const Pdgemr2d&) = delete;
  Pdgemr2d& operator=(const Pdgemr2d&) = delete;

  /// source / target: this rank's local arrays in choreo's layout (the same as ScaLAPACK's).
  void execute(const double* source, double* target);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace choreo::bench
