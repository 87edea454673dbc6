#pragma once
// Private to the tuning-file writers and readers (choreo/select/rules_export.hpp): the decision
// table they share (choreo's algorithms of each collective and their numbers and names in Open MPI
// and MPICH), the decisions checked against it (rules_table.cpp), and a few helpers.
//
// What each library compares against a rule's threshold, for choreo's `bytes` b on a
// communicator of P ranks (b: allgather = bytes per rank, bcast = message bytes,
// allreduce = vector bytes, alltoall = bytes per destination):
//
//   Open MPI 4.1.4, ompi/mca/coll/tuned/coll_tuned_decision_dynamic.c: each
//   ompi_coll_tuned_<coll>_intra_dec_dynamic computes dsize and picks the message rule with the
//   largest msg_size <= dsize (rules start at 0, so one always matches):
//     allgather  dsize = type_size(sdtype) * scount * P  = b * P
//     alltoall   dsize = type_size(sdtype) * scount * P  = b * P
//     allreduce  dsize = type_size(dtype) * count        = b
//     bcast      dsize = type_size(dtype) * count        = b
//   so a choreo rule from f bytes is written as msg_size f*P (allgather, alltoall) or f, and a
//   msg_size M reads back as ceil(M / P) bytes per rank (the smallest b with b*P >= M).
//   The communicator rule used is the one with the largest comm size <= P (or the first), so
//   the writer brackets each decision with algorithm-0 rules (Open MPI's fixed decision).
//   Collective ids are Open MPI 4.1.4's COLLTYPE enum (coll_base_functions.h):
//   allgather 0, allreduce 2, alltoall 3, bcast 7; COLLCOUNT is 22. Open MPI 5.0 has the same
//   ids and the same numbers for the algorithms choreo exports.
//
//   Open MPI 5.0's reader (ompi_coll_tuned_read_rules_config_file in coll_tuned_dynamic_file.c)
//   first tries fscanf(f, "rule-file-version-%u"): only at the very first byte, and a file
//   without it is version 1. The numbers are read with fscanf("%li") (so 010 is octal 8); in a
//   version 2 file, after the segment size of a rule, a digit as the next character other than
//   space and tab (ompi_coll_base_file_peek_next_char_isdigit) starts a fifth number, the rule's
//   max_requests. Open MPI 4.1.4 knows no version line.
//
//   MPICH 4.0.2, src/mpi/coll/src/csel.c (get_avg_msgsize, get_total_msgsize): a branch
//   "K<=V" is taken when K <= V (atoi: V must fit an int), "K=any" always:
//     allgather  total_msg_size = type_size(recvtype) * recvcount * P = b * P
//                (avg_msg_size is not defined for allgather: MPICH aborts)
//     alltoall   avg_msg_size   = type_size(sendtype) * sendcount    = b
//     allreduce  avg_msg_size   = type_size(datatype) * count        = b
//     bcast      avg_msg_size   = type_size(datatype) * count        = b
//   so a rule that ends before f bytes is written as total_msg_size<=f*P-1 (allgather) or
//   avg_msg_size<=f-1, and total_msg_size<=V reads back as "next rule from floor(V/P)+1".
//   The file replaces MPICH's built-in tree, so the writer starts from that tree (MPICH 4.0.2's
//   maint/tuning/coll/mpir/generic.json, compiled into libmpich as MPII_coll_generic_json; here
//   src/select/data/mpich-4.0.2-mpir-generic.json, embedded at build time) and replaces only
//   the comm_type=intra subtree of each collective choreo decides.
//   MPIR_Csel_prune walks each collective's subtree when a communicator is created, deciding
//   the conditions on the communicator (comm_type, comm_size, comm_hierarchy, ...) until the
//   first condition on the call; MPIR_Csel_search decides the rest at each call. Pruning tests
//   comm_size<N as <, the search as <= (mpich_csel_select models both).
//
// The tests in tests/mpi/CMakeLists.txt (mpi.rules_*) put a threshold at exactly these values
// and show, with gdb breakpoints in the libraries, that b-1 and b run different algorithms, and
// that calls the file does not decide run what MPICH runs without it.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/select/rules_export.hpp"

namespace choreo::detail::rules {

struct Algorithm {
  std::string_view name;   ///< choreo's generator name
  int ompi;                ///< Open MPI 4.1.4 coll_tuned_<coll>_algorithm number
  std::string_view mpich;  ///< MPICH 4.0.2 CSEL algorithm, empty when MPICH lacks it
};

struct Collective {
  std::string_view name;
  int ompi_id;            ///< COLLTYPE in Open MPI 4.1.4
  bool ompi_times_ranks;  ///< coll_tuned compares bytes * comm size
  bool mpich_total;       ///< CSEL key total_msg_size (bytes * comm size), else avg_msg_size
  std::vector<Algorithm> algorithms;
  std::vector<std::string_view> ompi_numbers;  ///< Open MPI's algorithms by number, for messages
  /// CSEL conditions of calls choreo's MPICH algorithms cannot take: inside a decision they lead
  /// to MPICH's stock subtree. MPICH's pairwise and Bruck alltoall do not take MPI_IN_PLACE;
  /// its reduce-scatter/allgather allreduce is for commutative built-in ops with count >= the
  /// largest power of two <= P.
  std::vector<std::string_view> mpich_guards;
};

/// The collectives choreo exports, with their algorithms.
const std::vector<Collective>& collectives();

/// Open MPI 4.1.4's COLLTYPE names, by id.
inline constexpr std::string_view kOmpiCollectives[] = {"allgather",
                                                        "allgatherv",
                                                        "allreduce",
                                                        "alltoall",
                                                        "alltoallv",
                                                        "alltoallw",
                                                        "barrier",
                                                        "bcast",
                                                        "exscan",
                                                        "gather",
                                                        "gatherv",
                                                        "reduce",
                                                        "reduce_scatter",
                                                        "reduce_scatter_block",
                                                        "scan",
                                                        "scatter",
                                                        "scatterv",
                                                        "neighbor_allgather",
                                                        "neighbor_allgatherv",
                                                        "neighbor_alltoall",
                                                        "neighbor_alltoallv",
                                                        "neighbor_alltoallw"};
inline constexpr auto kOmpiCollCount = static_cast<std::int64_t>(std::size(kOmpiCollectives));

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

/// "a, b and c".
template <typename Items, typename Format>
std::string join(const Items& items, Format format) {
  std::string out;
  std::size_t i = 0;
  for (const auto& item : items) {
    if (i > 0) out += i + 1 == std::size(items) ? " and " : ", ";
    out += format(item);
    ++i;
  }
  return out;
}

/// "allgather, allreduce, alltoall and bcast".
std::string collective_names();

/// The collective called `name`, or nullptr.
const Collective* find_collective(std::string_view name);

enum class Library { ompi, mpich };

std::string_view library_name(Library library);

/// Whether `library` runs algorithm `a`.
bool has(const Algorithm& a, Library library);

/// The algorithms of `c` that `library` runs, for a message: "ring (4), bruck (2) ...".
std::string available(const Collective& c, Library library);

/// "decision for allgather on 8 ranks".
std::string label(const CollectiveDecision& d);

/// A decision checked against the tables, with its collective and algorithms resolved.
struct Checked {
  const CollectiveDecision* decision;
  const Collective* collective;
  std::vector<const Algorithm*> algorithms;  ///< one per rule
};

/// `decisions` checked against the table for `library`, sorted by collective and communicator
/// size; throws choreo::Error naming the first wrong one.
std::vector<Checked> check(const std::vector<CollectiveDecision>& decisions, Library library);

/// Sorts decisions read back as check() sorts them (by Open MPI collective id, then size).
void sort_decisions(std::vector<CollectiveDecision>& decisions);

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace choreo::detail::rules
