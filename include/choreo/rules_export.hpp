#pragma once
// Algorithm-selection decisions written as the tuning files of the two MPI libraries choreo
// runs on, and read back (docs/selection.md):
//
//   Open MPI 4.1.4  coll_tuned dynamic rules, the classic text format (no version line), read
//                   with --mca coll_tuned_use_dynamic_rules 1
//                        --mca coll_tuned_dynamic_rules_filename FILE
//   MPICH 4.0.2     a CSEL tuning file (JSON) for MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE,
//                   with MPIR_CVAR_DEVICE_COLLECTIVES=none so that MPI_<Coll> reaches the
//                   MPIR-level selection on the communicator it was called on
//
// A decision says which choreo algorithm a collective uses on communicators of exactly
// comm_size ranks, by message size. Sizes are choreo's `bytes` of the collective spec:
//   allgather  bytes each rank contributes      bcast     bytes of the message
//   allreduce  bytes of the vector              alltoall  bytes each rank sends to each rank
// The writers convert them to what each library compares (Open MPI multiplies by the
// communicator size for allgather and alltoall; MPICH compares allgather's total_msg_size and
// the others' avg_msg_size): see the comments in src/select/rules_export.cpp.
//
// Algorithms by choreo name (the generators of choreo::coll):
//   allgather  ring, bruck, recdbl, neighbor      allreduce  recdbl, ring, rabenseifner
//   bcast      binomial, scatter_allgather        alltoall   pairwise, bruck
// MPICH 4.0.2 has no neighbor-exchange allgather and no ring allreduce: exporting them to
// MPICH throws.
//
// Everything throws choreo::Error on bad input, naming what is wrong (the decision, the line
// of a rules file, the JSON path of a CSEL file) and what would be accepted.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace choreo {

/// Use `algorithm` from `from_bytes` (inclusive) up to the next rule's from_bytes.
struct SizeRule {
  std::int64_t from_bytes = 0;
  std::string algorithm;
  bool operator==(const SizeRule&) const = default;
};

/// The rules of one collective on communicators of comm_size ranks: ascending from_bytes,
/// the first 0.
struct CollectiveDecision {
  std::string collective;  ///< allgather, allreduce, alltoall or bcast
  int comm_size = 0;
  std::vector<SizeRule> rules;
  bool operator==(const CollectiveDecision&) const = default;
};

/// The blocking collectives of MPI, in the order of Open MPI 4.1.4's COLLTYPE enum, so that a
/// name's index is its collective id in a coll_tuned rules file. MPICH 4.0.2's CSEL file
/// names the same collectives and, with an "i" in front, their nonblocking forms.
std::span<const std::string_view> mpi_collectives();

/// The tuning file formats: Open MPI 4.1.4 coll_tuned rules, MPICH 4.0.2 CSEL JSON.
enum class TuningLibrary { OpenMpi, Mpich };

/// choreo's algorithms of `collective` that `library` runs, so that a decision among them
/// exports (e.g. bcast: binomial and scatter_allgather, not choreo's own kary_pipeline).
/// Throws choreo::Error for a collective the writers do not export.
std::vector<std::string> exportable_algorithms(std::string_view collective, TuningLibrary library);

/// Open MPI 4.1.4 coll_tuned rules, classic format, with # comments. Communicator sizes
/// without a decision (smaller, larger, and between two decisions) get algorithm 0, which
/// hands the call to Open MPI's own fixed decision.
std::string ompi_rules_text(const std::vector<CollectiveDecision>& decisions);

/// Reads a classic-format coll_tuned rules file (as written above, or by hand). A
/// communicator rule for size N becomes the decision for N; rules whose only algorithm is 0
/// are Open MPI's fixed decision and are skipped. Segment sizes and fan-in/out are not kept.
/// Decisions come back sorted by collective, then comm_size.
std::vector<CollectiveDecision> parse_ompi_rules(std::string_view text);

/// MPICH 4.0.2 CSEL tuning file. It replaces MPICH's whole MPIR-level table, so it also
/// holds a conservative algorithm for every collective and communicator without a decision.
std::string mpich_csel_json(const std::vector<CollectiveDecision>& decisions);

/// Reads a CSEL file of the shape mpich_csel_json writes. A branch "comm_size<=N" holding
/// message-size rules becomes the decision for N; branches holding a single algorithm are
/// fallbacks and are skipped, as are the collectives choreo does not decide.
/// Decisions come back sorted by collective, then comm_size.
std::vector<CollectiveDecision> parse_mpich_csel_json(std::string_view text);

}  // namespace choreo
