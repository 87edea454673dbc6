#pragma once
// Method::Auto's data path, settled by measurement (mpi.hpp). The rule (shared memory between
// ranks of one node, packing a large non-contiguous side otherwise, datatypes for small ones)
// never loses much: derived datatypes cost 10-14x when two ranks share a core under MPICH
// (docs/redistribution.md). But where each rank has a core, datatypes were at times 1.2-1.6x
// faster than packing. So where the rule packs or shares some side, this rank also builds the
// all-datatype engine and runs the two alternately on the first eight executes: one warm-up
// each, then three timed executes each, every one after a barrier (so that neither engine is
// charged for the skew the program left between its ranks). It keeps the faster from then on:
// the datatype one must win by 20%, median against median.
//
// The choice is made once for all ranks, on the slowest rank's time of each execute: an
// allreduce at construction (every rank measures if any rank packs or shares) and one at the
// 8th execute.
// Ranks that decided alone ran a mix nobody timed (under Open MPI with 4 ranks on 2 cores,
// `auto` took up to 1.4x the better forced path), and a shared message needs both of its ranks
// on the same engine. That needs every rank to build its engine at the same collective call and
// execute it at the same calls: RedistPlan does, and the ScaLAPACK entry points do (their plan
// cache is keyed on what every process passes alike; a process whose own LLD changed rebuilds
// its engines in place with rebuild(), keeping the measurement where it was).
#include <mpi.h>

#include <array>
#include <memory>

#include "message_engine.hpp"

namespace choreo::redist {

class MeasuredEngine {
 public:
  /// Collective over `comm`.
  MeasuredEngine(MPI_Comm comm, const RankPlan& plan, MPI_Datatype base, Method method, int tag);
  MeasuredEngine(const MeasuredEngine&) = delete;
  MeasuredEngine& operator=(const MeasuredEngine&) = delete;

  void execute(const void* source, void* target);
  /// The same engines for another plan of this rank (its local arrays' leading dimensions
  /// changed: the same peers and sizes), keeping the measurement's progress and choice and the
  /// shared-memory links: no communication.
  void rebuild(const RankPlan& plan);
  /// The engine in use: the rule's until the measurement chose the datatype one.
  const RedistStats& stats() const;
  /// Whether the measurement is over (or there was nothing to measure).
  bool settled() const { return !datatype_ || !rule_; }

 private:
  static constexpr int kWarmups = 2, kSamples = 3;

  MPI_Comm comm_;
  std::unique_ptr<MessageEngine> rule_, datatype_;
  int executes_ = 0;
  /// The timed executes, alternately the rule's and the datatype engine's.
  std::array<double, 2 * kSamples> seconds_{};
};

}  // namespace choreo::redist
