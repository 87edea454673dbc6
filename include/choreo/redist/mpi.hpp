#pragma once
// Redistribution on MPI (paper 002, sec. 3.3), built once and executed many times:
//
//   choreo::redist::RedistPlan plan(MPI_COMM_WORLD, from, to, MPI_DOUBLE);  // once
//   for (...) { fill(src); plan.execute(src, dst); use(dst); }              // many times
//
// Each rank plans only its own messages (rank_plan.hpp: time and memory in proportion to what
// it sends and receives, plus O(P)), then chooses for each side of each message how it moves
// (the data path, docs/redistribution.md):
//  - direct: the elements are contiguous in this rank's memory; MPI reads or writes the array;
//  - datatype: an MPI derived datatype describes the section (paper 002's array-to-array
//    transfer with no buffer);
//  - pack: choreo copies the section into a buffer of its own (or out of one) and MPI moves
//    a contiguous message;
//  - shared: both ranks are on one node; the sender packs into a shared-memory window and the
//    receiver unpacks out of it, the two ordered by counters beside the data (no MPI message).
// Method::Auto (the default) sends messages between ranks of one node through shared memory
// (unless both sides are contiguous or the message is at most kDatatypeMaxBytes), and the
// others direct where it can, by datatype up to kDatatypeMaxBytes, packed above: a large
// message with derived datatypes goes through MPI's pipelined copy, which costs a scheduler
// time slice per fragment when ranks share a core (125-975 ms instead of 10-20 ms for
// 2000x2000 doubles, measured with MPICH and Open MPI), and shared memory takes two copies
// where packing through MPI takes three, none of them waiting for the peer to run. So Auto is
// never slower than packing wherever the ranks run; where it packs or shares, it also times the
// all-datatype path, alternating with its own on the first eight executes, and keeps the
// faster. Method::Datatype,
// Method::Pack and Method::Shared force one path (for comparisons; Shared moves the messages
// it cannot share as Auto does).
// A rank's own data is copied from the source to the target array directly, without MPI.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "choreo/redist/message_layout.hpp"
#include "choreo/redist/plan.hpp"

namespace choreo::redist {

enum class Method {
  Auto,      ///< shared within a node, else direct, datatype when small, pack (above); measured
  Datatype,  ///< derived datatypes from array to array, no buffers (the paper's "direct")
  Pack,      ///< one buffer per message, packed and unpacked by choreo, moved by MPI
  Shared,    ///< Auto's paths without the measurement: shared memory within a node
};

/// "auto", "datatype", "pack" or "shared".
const char* to_string(Method method);

/// Auto's limit for a message side described by a derived datatype: below it MPI sends one
/// eager message either way (Open MPI's shared-memory eager limit is 4 KiB), above it a
/// non-contiguous message goes through MPI's pipelined copy (docs/redistribution.md).
inline constexpr std::int64_t kDatatypeMaxBytes = 4096;

/// A committed datatype describing one side of a transfer, and where it starts: send or
/// receive `1` of `type` at `local array + offset_bytes`. Owns the type (MPI_Type_free).
class SectionType {
 public:
  SectionType() = default;
  SectionType(MPI_Datatype type, MPI_Aint offset_bytes, int constructors);
  ~SectionType();
  SectionType(SectionType&& other) noexcept;
  SectionType& operator=(SectionType&& other) noexcept;
  SectionType(const SectionType&) = delete;
  SectionType& operator=(const SectionType&) = delete;

  MPI_Datatype type() const { return type_; }
  MPI_Aint offset_bytes() const { return offset_; }
  /// How many MPI type constructors built it (the compactness of the description: one
  /// regular triplet per dimension takes one per dimension, whatever its length).
  int constructors() const { return constructors_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Aint offset_ = 0;
  int constructors_ = 0;
};

/// The datatype of a section list: per dimension a list of local triplets (offsets in elements
/// of the flat local array, as in DimTransfer), combined as their Cartesian product with the
/// first dimension fastest, the elements of type `base` (any committed datatype; addresses
/// step by its extent). Per dimension the triplets are merged where they continue one another
/// in memory, a repeating run of triplets becomes one MPI_Type_create_hvector over the run, a
/// single triplet a (h)vector or contiguous type, and different triplets a struct; dimensions
/// nest as hvectors with the local layout's byte strides. Throws choreo::Error when a count
/// does not fit an int or the result's size is not elements x size of base.
SectionType section_type(const std::vector<std::vector<LocalTriplet>>& dims, MPI_Datatype base);
/// The source side (`source == true`) or the target side of a transfer.
SectionType section_type(const Transfer& transfer, bool source, MPI_Datatype base);

/// The datatype of a message side's sections (message_layout.hpp): one section_type, or a
/// struct of them in order; its offset is the first section's.
SectionType layout_type(const std::vector<LocalSection>& sections, MPI_Datatype base);

struct RedistOptions {
  Method method = Method::Auto;
  /// MPI tag of every message. The plan communicates on its own duplicate of the
  /// communicator, so any tag is safe; it must be the same on every rank.
  int tag = 0x7264;
};

/// What building the plan took on this rank, and what it holds.
struct RedistStats {
  double plan_seconds = 0;         ///< plan_rank: this rank's comm sets and messages
  double setup_seconds = 0;        ///< datatypes and buffers
  int sends = 0;                   ///< messages this rank sends (its local copy not counted)
  int receives = 0;                ///< messages it receives
  std::int64_t send_bytes = 0;     ///< bytes in them
  std::int64_t receive_bytes = 0;  ///< bytes in them
  std::int64_t copy_bytes = 0;     ///< bytes that stay on this rank
  /// Pack buffers and this rank's segment of the shared-memory window (0 when no message side
  /// packs or shares).
  std::int64_t buffer_bytes = 0;
  /// The plan's own memory: this rank's triplets, sections and messages (RankPlan::bytes and
  /// the sections the data path keeps).
  std::int64_t metadata_bytes = 0;
  int type_constructors = 0;  ///< MPI type constructors over all this rank's datatypes
  /// Message sides (sends and receives, the local copy not counted) by data path.
  int direct_sides = 0, datatype_sides = 0, pack_sides = 0, shared_sides = 0;
};

class RedistPlan {
 public:
  /// Collective over `comm`: every rank calls it with the same distributions and options
  /// (each plans its own messages). Throws the same choreo::Error on every rank, before any
  /// communication, when the distributions are inconsistent or need more ranks than comm has.
  RedistPlan(MPI_Comm comm, const ArrayDistribution& from, const ArrayDistribution& to,
             MPI_Datatype base, const RedistOptions& options = {});
  /// Frees datatypes, buffers and the duplicate communicator (collective: destroy it on every
  /// rank before MPI_Finalize).
  ~RedistPlan();
  RedistPlan(RedistPlan&&) noexcept;
  RedistPlan& operator=(RedistPlan&&) noexcept;
  RedistPlan(const RedistPlan&) = delete;
  RedistPlan& operator=(const RedistPlan&) = delete;

  /// Moves this rank's part: `source` is its local array of the source distribution (at least
  /// source_elements() elements of base; unused, may be null, when the rank is not in the
  /// source grid), `target` its local array of the target distribution. Returns when this
  /// rank's sends and receives are complete (no barrier but the eight executes of Auto's
  /// measurement). Source and target must not overlap.
  /// Collective over comm, like ScaLAPACK's p?gemr2d: every rank calls it the same number of
  /// times, ranks with nothing to move too (Method::Auto's measurement agrees once, at the 8th
  /// execute, on the slowest rank's times; src/redist/measured_engine.hpp).
  void execute(const void* source, void* target);

  /// Elements of base this rank's source / target local arrays hold (0: not in that grid).
  std::int64_t source_elements() const;
  std::int64_t target_elements() const;

  const RankPlan& plan() const;
  const RedistStats& stats() const;
  Method method() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace choreo::redist
