#pragma once
// Method::Auto's data path, settled by measurement on this rank (mpi.hpp). The rule (packing
// a large non-contiguous message side, datatypes for small ones) never loses much: derived
// datatypes cost 10-14x when two ranks share a core under MPICH (docs/redistribution.md).
// But where each rank has a core, or under Open MPI, datatypes were 1.2-1.6x faster than
// packing. So where the rule packs some side, this rank also builds the all-datatype engine,
// runs the rule's on the first three executes (the first is a warm-up), the datatype one on
// the next two, and keeps the faster from then on (the datatype one must win by 3%, the best
// of two each). Every rank switches at the same execute, so the two timings compare all
// ranks on the rule with all on datatypes. No agreement between ranks is needed for the data
// to be right: each message side chooses its path alone and the type signature on the wire is
// the same either way (message_engine.hpp). But ranks that decide alone can decide
// differently and run a mix nobody timed (under Open MPI with 4 ranks on 2 cores, `auto` took
// up to 1.4x the better forced path, docs/BENCHMARKS.md). With Agreement::Collective every
// rank measures, and the choice is made once on the slowest rank's times (two allreduces in
// the engine's life: at construction and at the 5th execute), so all ranks choose alike. That
// needs every rank to build its engine at the same collective call and execute it at the same
// calls: RedistPlan does, and the ScaLAPACK entry points do (their plan cache is keyed on what
// every process passes alike; a process whose own LLD changed rebuilds its engines in place
// with rebuild(), keeping the measurement where it was).
#include <mpi.h>

#include <memory>

#include "message_engine.hpp"

namespace choreo::redist {

class MeasuredEngine {
 public:
  enum class Agreement { PerRank, Collective };
  MeasuredEngine(MPI_Comm comm, const RankPlan& plan, MPI_Datatype base, Method method, int tag,
                 Agreement agreement);
  MeasuredEngine(const MeasuredEngine&) = delete;
  MeasuredEngine& operator=(const MeasuredEngine&) = delete;

  void execute(const void* source, void* target);
  /// The same engines for another plan of this rank (its local arrays' leading dimensions
  /// changed), keeping the measurement's progress and choice: no communication.
  void rebuild(const RankPlan& plan);
  /// The engine in use: the rule's until the measurement chose the datatype one.
  const RedistStats& stats() const;
  /// Whether the measurement is over (or there was nothing to measure).
  bool settled() const { return !datatype_ || !rule_; }

 private:
  MPI_Comm comm_;
  MPI_Datatype base_;
  Method method_;
  int tag_;
  Agreement agreement_;
  std::unique_ptr<MessageEngine> rule_, datatype_;
  int executes_ = 0;
  double rule_seconds_ = 0, datatype_seconds_ = 0;
};

}  // namespace choreo::redist
