#include "choreo/coll/mpi_defaults.hpp"

namespace choreo::coll {
namespace {

bool is_power_of_2(int n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

MpiLibrary library_of(std::string_view version) {
  if (version.find("Open MPI") != std::string_view::npos) return MpiLibrary::OpenMpi;
  if (version.find("MPICH") != std::string_view::npos) return MpiLibrary::Mpich;
  return MpiLibrary::Other;
}

std::string mpi_default_algorithm(MpiLibrary library, std::string_view collective,
                                  std::int64_t bytes, int ranks) {
  // One algorithm each in choreo, the one MPICH runs by default (Open MPI's are alike:
  // recursive doubling or Bruck for barrier, binomial trees for the rooted ones).
  if (collective == "barrier") return "dissemination";
  if (collective == "reduce" || collective == "gather" || collective == "scatter")
    return "binomial";
  // MPICH's MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE (256) and _BRUCK_MIN_PROCS (8); its medium-size
  // isend/irecv exchange is nearest to pairwise. Taken for Open MPI too.
  if (collective == "alltoall") return bytes <= 256 && ranks >= 8 ? "bruck" : "pairwise";
  const std::int64_t total = bytes * ranks;
  if (library == MpiLibrary::OpenMpi) {
    // coll/tuned's fixed decisions (Open MPI 4.1), to the nearest generator choreo has.
    if (collective == "bcast") return bytes < 2048 ? "binomial" : "kary_pipeline";
    if (collective == "allreduce") return bytes < 10000 ? "recdbl" : "ring";
    if (total < 50000) return is_power_of_2(ranks) ? "recdbl" : "bruck";
    return ranks % 2 == 0 ? "neighbor" : "ring";
  }
  // MPICH's defaults (MPIR_CVAR_BCAST_SHORT_MSG_SIZE 12288, _BCAST_MIN_PROCS 8,
  // _ALLREDUCE_SHORT_MSG_SIZE 2048, _ALLGATHER_SHORT_MSG_SIZE 81920, _LONG_MSG_SIZE 524288).
  if (collective == "bcast") return bytes < 12288 || ranks < 8 ? "binomial" : "scatter_allgather";
  if (collective == "allreduce") return bytes <= 2048 ? "recdbl" : "rabenseifner";
  if (total < 524288 && is_power_of_2(ranks)) return "recdbl";
  return total < 81920 ? "bruck" : "ring";
}

}  // namespace choreo::coll
