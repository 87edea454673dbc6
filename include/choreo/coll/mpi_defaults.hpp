#pragma once
// Which of choreo's collective generators (src/coll) stands for what an MPI library runs by
// default: the interposition library's model compares choreo's algorithms with it, and
// `choreo import` expands a recorded collective by it. No MPI here.
#include <cstdint>
#include <string>
#include <string_view>

namespace choreo::coll {

enum class MpiLibrary : std::uint8_t { Mpich, OpenMpi, Other };
/// From MPI_Get_library_version's first line.
MpiLibrary library_of(std::string_view version);

/// The algorithm of the generator `collective:algorithm` closest to what `library` runs by
/// default for a call of `bytes` (bcast, reduce, allreduce: the vector; allgather, alltoall,
/// gather, scatter: one rank's block) on `ranks` ranks: MPICH's documented thresholds, Open MPI
/// 4.1's fixed decision rules, and MPICH's for any other library (docs/intercept.md and
/// docs/record-replay.md give the rules). `collective` is one of barrier, bcast, reduce,
/// allreduce, allgather, alltoall, gather, scatter.
std::string mpi_default_algorithm(MpiLibrary library, std::string_view collective,
                                  std::int64_t bytes, int ranks);

}  // namespace choreo::coll
