#pragma once
// Whether choreo's command list or the MPI library's own collective runs a request (private):
// decided by measurement, because the model cannot know the library's shared-memory paths.
// Measured here on one node, MPICH's MPI_Bcast_init lost to choreo's binomial tree below
// 64 KiB while Open MPI's MPIX_Bcast_init beat every tree from 64 KiB and at 256 B and less
// (docs/persistent.md, "Choice by model"). The first kTrialStarts starts alternate between
// the two; each rank times its own instances (start to completion), the first of each side
// untimed (first starts pay for lazy set-up in MPI libraries); the next start posts the
// agreement on the slowest rank's median of each side (an MPI_Iallreduce on the request's
// communicator, which every rank reaches at the same start) and runs the library's side;
// that instance completes when the agreement has too, and the faster side runs from then on.
// start() never blocks: MPI_Start is local, and a program may send to a rank after starting
// a collective that the rank has not started yet.
#include <mpi.h>

#include <array>
#include <string>

namespace choreo::persist::detail {

class LibraryTrial {
 public:
  enum class Side { Choreo = 0, Library = 1 };
  /// Timed starts per side before the decision: enough for a median that one late start
  /// does not move, few enough that a short loop of collectives pays little for the slower
  /// side. Each side also has one untimed start first.
  static constexpr int kStartsPerSide = 4;
  static constexpr int kTrialStarts = 2 * (kStartsPerSide + 1);

  /// At start(): the side this instance runs; at the first start after the trial, posts
  /// the agreement (nonblocking, collective over comm).
  Side begin(MPI_Comm comm);
  /// When the started instance completed.
  void end();
  bool decided() const { return decided_; }
  /// Whether the agreement is posted and not yet complete: the instance is not complete
  /// until finish_agreement() or try_finish_agreement() says so.
  bool agreeing() const { return agreement_ != MPI_REQUEST_NULL; }
  void finish_agreement();      ///< blocks until agreed (inside wait())
  bool try_finish_agreement();  ///< true once agreed (inside test())
  /// "measured over 8 starts (slowest rank's mean): choreo's 1.2 us, the other 1.5 us", or
  /// "measuring, 3 of 8 starts".
  std::string note() const;

 private:
  int starts_ = 0;
  bool decided_ = false;
  Side side_ = Side::Choreo;
  /// MPI_Wtime: the MPI library's clock, which SMPI makes the simulated time (so the trial
  /// compares simulated runs there, not the host's time to simulate them).
  double began_ = 0;
  std::array<std::array<double, kStartsPerSide>, 2> samples_{};  ///< this rank's, per side
  std::array<double, 2> mine_{};     ///< this rank's medians, sent by the agreement
  std::array<double, 2> seconds_{};  ///< after the decision: the slowest rank's medians
  MPI_Request agreement_ = MPI_REQUEST_NULL;
  void decide();
};

}  // namespace choreo::persist::detail
