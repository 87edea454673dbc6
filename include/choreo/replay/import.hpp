#pragma once
// `choreo import`: a recording (include/choreo/replay/trace_format.hpp) becomes a Schedule, so the
// simulator replays the application (docs/record-replay.md has the rules).
//
// Each rank's calls become a chain of ops in call order: the computation between two calls is
// a calc, a blocking call's ops require what came before and are required by what follows, a
// nonblocking one's ops only have to have started (GOAL irequires) before the next op, and a
// Wait or Test adds the ops of the requests it completed to what the next op requires.
// Messages are matched as MPI matches them; every matched pair gets its own tag (the count of
// messages before it from the same sender to the same receiver), so the replay cannot match
// them otherwise. Each collective is expanded by one of choreo's generators (src/coll) on its
// communicator's ranks.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "choreo/core/schedule.hpp"
#include "choreo/replay/trace_format.hpp"

namespace choreo::replay {

/// One send as the matcher sees it, on its sending rank: global communicator id, receiver's
/// world rank, tag.
struct SendKey {
  int comm = 0;
  int dst = 0;
  int tag = 0;
};
/// One receive, on its receiving rank, with the source and tag it matched (from its status
/// where it named MPI_ANY_SOURCE or MPI_ANY_TAG).
struct RecvKey {
  int comm = 0;
  int src = 0;
  int tag = 0;
};

/// MPI's matching on resolved receives: per communicator, sender, receiver and tag, the k-th
/// receive posted matches the k-th send posted (MPI's non-overtaking rule; with the source and
/// tag every receive actually matched, no other pairing is possible). sends[r] and recvs[r]
/// are rank r's in posting order. Returns, for recvs[r][k], the index of its send in
/// sends[source]. Throws choreo::Error naming the first send or receive left unmatched.
std::vector<std::vector<std::size_t>> match_messages(
    const std::vector<std::vector<SendKey>>& sends, const std::vector<std::vector<RecvKey>>& recvs);

struct ImportOptions {
  /// Collective name ("bcast") to algorithm ("binomial"), over the MPI library's default.
  std::map<std::string, std::string> algorithms;
  /// Multiplies every computation gap; 0 leaves computation out (communication alone).
  double calc_scale = 1.0;
};

/// The algorithm a collective of the trace is expanded by: `options` if it names one, else
/// the MPI library's default (choreo/coll/mpi_defaults.hpp); alltoallv: "direct".
std::string algorithm_for(trace::Collective collective, const ImportOptions& options,
                          std::string_view mpi_library, std::int64_t bytes, int ranks);

/// Throws choreo::Error for a collective name or algorithm choreo cannot expand by.
void check_algorithms(const ImportOptions& options);

/// The schedule of a whole recording; traces[r] is rank r's.
Schedule import_traces(const std::vector<trace::RankTrace>& traces, const ImportOptions& options);

}  // namespace choreo::replay
