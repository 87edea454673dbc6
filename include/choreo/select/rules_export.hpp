#pragma once
// Algorithm-selection decisions written as the tuning files of the two MPI libraries choreo
// runs on, and read back (docs/selection.md):
//
//   Open MPI 4.1.4  coll_tuned dynamic rules, the classic text format (no version line), read
//                   with --mca coll_tuned_use_dynamic_rules 1
//                        --mca coll_tuned_dynamic_rules_filename FILE
//                   (Open MPI 5.0 reads it too: a file without a version line is version 1)
//   Open MPI 5.0    the same rules in the version 2 format: a first line rule-file-version-2
//                   and a fifth number per rule, max_requests (Open MPI 4.1.4 cannot read it)
//   MPICH 4.0.2     a CSEL tuning file (JSON) for MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE,
//                   with MPIR_CVAR_DEVICE_COLLECTIVES=none so that MPI_<Coll> reaches the
//                   MPIR-level selection on the communicator it was called on. The file is
//                   MPICH 4.0.2's own selection tree with choreo's decisions spliced in, so every
//                   collective, communicator and call choreo does not decide keeps MPICH's stock
//                   choice.
//
// A decision says which choreo algorithm a collective uses on communicators of exactly
// comm_size ranks, by message size. Sizes are choreo's `bytes` of the collective spec:
//   allgather  bytes each rank contributes      bcast     bytes of the message
//   allreduce  bytes of the vector              alltoall  bytes each rank sends to each rank
// The writers convert them to what each library compares (Open MPI multiplies by the
// communicator size for allgather and alltoall; MPICH compares allgather's total_msg_size and
// the others' avg_msg_size): see the comments in src/select/rules_table.hpp.
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
#include <optional>
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

/// The tuning file formats: Open MPI coll_tuned rules, MPICH 4.0.2 CSEL JSON.
enum class TuningLibrary { OpenMpi, Mpich };

/// choreo's algorithms of `collective` that `library` runs, so that a decision among them
/// exports (e.g. bcast: binomial and scatter_allgather, not choreo's own kary_pipeline).
/// Throws choreo::Error for a collective the writers do not export.
std::vector<std::string> exportable_algorithms(std::string_view collective, TuningLibrary library);

/// The two formats of a coll_tuned rules file. Algorithm numbers and collective ids are the same
/// in Open MPI 4.1.4 and 5.0 for everything choreo exports.
enum class OmpiRulesFormat {
  v1,  ///< classic: no version line, four numbers per rule (Open MPI 4.1 and 5.0 read it)
  v2,  ///< Open MPI 5.0: first line rule-file-version-2, five numbers per rule
};

/// Open MPI coll_tuned rules, with # comments. Communicator sizes without a decision (smaller,
/// larger, and between two decisions) get algorithm 0, which hands the call to Open MPI's own
/// fixed decision. In the v2 format every rule also gives max_requests 0 (Open MPI's default,
/// no limit; only the linear-sync alltoall, which choreo does not export, uses it).
std::string ompi_rules_text(const std::vector<CollectiveDecision>& decisions,
                            OmpiRulesFormat format = OmpiRulesFormat::v1);

/// Reads a coll_tuned rules file in either format (as written above, or by hand), the way
/// Open MPI 5.0 reads it: a rule-file-version-N line only as the very first bytes, and in a
/// version 2 file a fifth number (max_requests) when it follows the segment size on the same
/// line. A communicator rule for size N becomes the decision for N; rules whose only algorithm
/// is 0 are Open MPI's fixed decision and are skipped. Segment sizes, fan-in/out and
/// max_requests are not kept. Decisions come back sorted by collective, then comm_size.
std::vector<CollectiveDecision> parse_ompi_rules(std::string_view text);

/// MPICH 4.0.2's built-in MPIR-level CSEL tree, as MPICH 4.0.2 ships it
/// (maint/tuning/coll/mpir/generic.json, compiled into libmpich as MPII_coll_generic_json),
/// pretty-printed: src/select/data/mpich-4.0.2-mpir-generic.json. MPICH uses it when no tuning
/// file is given.
std::string_view mpich_stock_csel_json();

/// MPICH 4.0.2 CSEL tuning file: MPICH's stock tree (mpich_stock_csel_json) with, for each
/// collective choreo decides, its comm_type=intra subtree replaced by
///   comm_size<=N-1: the stock subtree, comm_size<=N: choreo's decision,
///   ...                                 comm_size=any: the stock subtree
/// Inside a decision, calls choreo's algorithms cannot take (alltoall with MPI_IN_PLACE;
/// allreduce with a non-commutative or user-defined op, or fewer elements than the largest
/// power of two <= N) go to the stock subtree too. Everything else is the stock tree unchanged,
/// byte for byte: with no decisions the file is mpich_stock_csel_json().
std::string mpich_csel_json(const std::vector<CollectiveDecision>& decisions);

/// Reads a CSEL file of the shape mpich_csel_json writes (or of the older shape with single
/// fallback algorithms). A branch "comm_size<=N" holding message-size rules becomes the
/// decision for N; branches holding a single algorithm or MPICH's stock subtree are fallbacks
/// and are skipped, as are the collectives choreo does not decide (checked, not read).
/// Decisions come back sorted by collective, then comm_size.
std::vector<CollectiveDecision> parse_mpich_csel_json(std::string_view text);

/// A call as MPICH 4.0.2's CSEL (src/mpi/coll/src/csel.c) sees it.
struct MpichCall {
  std::string collective;          ///< allgather, allreduce, alltoall or bcast
  int comm_size = 1;               ///< ranks of the (local group of the) communicator
  std::int64_t bytes = 0;          ///< choreo's bytes (see above)
  std::int64_t element_bytes = 1;  ///< datatype size: MPICH's count is bytes / element_bytes
  bool intercomm = false;
  bool in_place = false;       ///< alltoall: sendbuf is MPI_IN_PLACE
  bool commutative = true;     ///< allreduce: the op
  bool builtin_op = true;      ///< allreduce: the op is one of MPI's
  bool node_hierarchy = true;  ///< MPICH built node sub-communicators (ranks share nodes)
};

/// The algorithm (MPICH's function name, e.g. MPIR_Allgather_intra_brucks) that the CSEL file
/// `csel_json` selects for each call, walking the tree as MPICH 4.0.2 does: conditions on the
/// communicator that lead the collective's subtree are decided when the communicator is
/// created (where comm_size<N means <), the rest at the call (where MPICH 4.0.2 tests
/// comm_size<N as <=). Throws choreo::Error when a call finds no algorithm (MPICH aborts).
std::vector<std::string> mpich_csel_select(std::string_view csel_json,
                                           const std::vector<MpichCall>& calls);

/// One size range of what an exported file changes.
struct ChangedRange {
  std::int64_t from_bytes = 0;
  std::optional<std::int64_t> to_bytes;  ///< the last bytes of the range; none: no end
  std::string algorithm;                 ///< choreo's name of what the file runs
  std::string library_function;          ///< MPICH: the function the file selects
  std::string stock;                     ///< MPICH: what its stock tree selects (function)
  std::string stock_algorithm;           ///< MPICH: the same as a choreo name, if choreo has it
};

/// What the file of one decision changes.
struct DecisionChanges {
  std::string collective;
  int comm_size = 0;
  std::vector<ChangedRange> ranges;  ///< ascending, from 0 bytes
};

/// What mpich_csel_json(decisions) changes against MPICH 4.0.2's stock tree, per decision and
/// size range (ranges split where either choice changes), for the calls the decision is for:
/// intra-communicators of comm_size ranks sharing nodes, no MPI_IN_PLACE, a commutative built-in
/// op, 1-byte elements. Nothing else changes (see mpich_csel_json).
std::vector<DecisionChanges> mpich_export_changes(const std::vector<CollectiveDecision>& decisions);

/// The same for an Open MPI rules file: each decision's ranges with the algorithm the file forces
/// (library_function: coll_tuned's algorithm number and name, e.g. "2 (bruck)"); Open MPI's
/// fixed decision is not modelled, so stock is empty.
std::vector<DecisionChanges> ompi_export_changes(const std::vector<CollectiveDecision>& decisions);

}  // namespace choreo
