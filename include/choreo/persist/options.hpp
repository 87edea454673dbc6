#pragma once
// How a persistent collective is built and progressed: the options of every *_init call.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/coll/pipeline.hpp"

namespace choreo::persist {

/// Who moves a started collective forward (docs/persistent.md compares them).
enum class Engine : std::uint8_t {
  /// The precompiled command list, the offload analogue on commodity MPI: every persistent
  /// point-to-point request is created at init; start() posts the first wave (every op
  /// without dependencies); test() and wait() release dependents as requests complete.
  Commands,
  /// One progress thread per process, created by the first request that needs it and reused
  /// by every later one: start() hands the request over; the thread starts, tests and
  /// releases; wait() only watches an atomic flag. Needs MPI_THREAD_MULTIPLE (see
  /// Options::allow_serialized).
  Thread,
  /// No overlap, for comparison: start() only marks the request; wait() and test() run the
  /// whole collective.
  Inline,
};

std::string_view to_string(Engine engine);
/// "commands", "thread" or "inline"; throws choreo::Error naming the choices otherwise.
Engine engine_from_string(std::string_view name);

struct Options {
  Engine engine = Engine::Commands;
  /// "" takes the collective's default: bcast the model's tree, measured against the MPI
  /// library's own over the first starts with the commands engine ("Choice by model" in
  /// docs/persistent.md); allreduce "recdbl" up to 16 KiB and "ring" above, allgather
  /// "ring", alltoallv "openshop" (the scheduler that docs/scheduling.md recommends for
  /// unequal sizes). bcast also takes "mpi": the MPI library's own. request.describe()
  /// reports the choice.
  std::string algorithm;
  std::int64_t segment_bytes = 0;  ///< pipelined broadcasts; 0: Hockney's rule with alpha, beta
  int arity = 0;                   ///< tree arity; 0: 2 for kary_pipeline, 3 for multitree
  int parts = 3;                   ///< multitree: parts and trees
  double alpha = coll::kDefaultAlphaSeconds;       ///< Hockney latency for the segment rule
  double beta = coll::kDefaultBetaSecondsPerByte;  ///< Hockney seconds per byte
  /// The thread engine accepts MPI_THREAD_SERIALIZED when the caller promises to make no
  /// MPI call from start() until wait() or test() reported completion (the progress thread
  /// is then the only thread in MPI). Without it the thread engine needs MPI_THREAD_MULTIPLE.
  bool allow_serialized = false;
  /// bcast: the ranks sit on an A x B x C torus (paper 003's Fig. 2), {0, 0, 0}: no topology
  /// known. With it, "multitree_torus" maps the three trees onto the torus so that no link
  /// carries two trees, and the default takes them from kTorusTreesFromBytes (docs/persistent.md).
  /// A B C must equal the communicator's size. A mesh (no wrap-around links) is not a torus.
  std::array<int, 3> torus{0, 0, 0};
  /// With torus: the node (x + A (y + B z)) of each rank of the communicator, a permutation of
  /// 0..P-1; empty: rank r on node r (x fastest, as choreo sim --network torus:AxBxC places).
  std::vector<int> torus_placement;
  /// The largest message (and reduction) the engines hand to MPI, in bytes; 0: INT_MAX, what
  /// MPI's int counts allow. A larger one travels as pieces of at most this size, one after
  /// the other, so collectives past 2 GiB (the *_init_c calls) work on any MPI. The same on
  /// every rank.
  std::int64_t max_message_bytes = 0;
};

/// From this size on, a broadcast on a known torus defaults to the torus-mapped trees (measured
/// under SMPI on a 4x4x4 torus: 0.50-0.58x MPI_Bcast's time from 64 KiB, docs/BENCHMARKS.md).
inline constexpr std::int64_t kTorusTreesFromBytes = 64 * 1024;

}  // namespace choreo::persist
