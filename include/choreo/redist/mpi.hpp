#pragma once
// Redistribution on MPI (paper 002, sec. 3.3): a Plan's array sections become MPI derived
// datatypes, so data moves from the source array to the target array with no pack buffers.
//
//   choreo::redist::RedistPlan plan(MPI_COMM_WORLD, from, to, MPI_DOUBLE);  // once
//   for (...) { fill(src); plan.execute(src, dst); use(dst); }              // many times
//
// The plan is built once: comm sets, one datatype per message and side, and persistent
// requests (MPI_Send_init / MPI_Recv_init, one per rank pair; a rank's own data goes through a
// send to itself with the same datatypes). execute() starts them all (MPI_Startall) and waits.
//
// Buffers: persistent requests bind their buffers. The requests are created by the first
// execute() for the buffers it gets, and re-created (a few microseconds per message, no
// communication) whenever a later call passes other buffers; calling execute() with the same
// two arrays every time costs nothing extra. The Pack method binds the plan's own buffers, so
// it never re-creates requests.
//
// The Pack method (MPI_Pack into one buffer per message, MPI_Unpack out of it) is kept to
// compare with: it needs about twice the moved data in buffers (buffer_bytes()).
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "choreo/redist/plan.hpp"

namespace choreo::redist {

enum class Method {
  Datatype,  ///< derived datatypes from array to array, no buffers (the paper's "direct")
  Pack,      ///< MPI_Pack / MPI_Unpack through one buffer per message
};

/// "datatype" or "pack".
const char* to_string(Method method);

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

struct RedistOptions {
  Method method = Method::Datatype;
  CommSetOptions comm_sets;  ///< the reductions (both on by default)
  /// MPI tag of every message. The plan communicates on its own duplicate of the
  /// communicator, so any tag is safe; it must be the same on every rank.
  int tag = 0x7264;
};

/// What building the plan took on this rank, and what it holds.
struct RedistStats {
  double plan_seconds = 0;         ///< make_plan: comm sets and sections (0 when given a Plan)
  double setup_seconds = 0;        ///< datatypes and buffers
  int sends = 0;                   ///< messages this rank sends (its local copy not counted)
  int receives = 0;                ///< messages it receives
  std::int64_t send_bytes = 0;     ///< bytes in them
  std::int64_t receive_bytes = 0;  ///< bytes in them
  std::int64_t copy_bytes = 0;     ///< bytes that stay on this rank
  std::int64_t buffer_bytes = 0;   ///< Pack: the pack buffers; Datatype: 0
  /// The plan and datatypes' own memory: the triplet lists kept for this rank's transfers (an
  /// estimate of the datatypes' descriptions, which MPI stores in about the same size).
  std::int64_t metadata_bytes = 0;
  int type_constructors = 0;  ///< MPI type constructors over all this rank's datatypes
};

class RedistPlan {
 public:
  /// Collective over `comm`: every rank calls it with the same distributions and options
  /// (each computes the whole plan; ranks in neither grid take part in nothing afterwards).
  /// Throws the same choreo::Error on every rank, before any communication, when the
  /// distributions are inconsistent or need more ranks than comm has.
  RedistPlan(MPI_Comm comm, const ArrayDistribution& from, const ArrayDistribution& to,
             MPI_Datatype base, const RedistOptions& options = {});
  /// The same, from a plan made by make_plan.
  RedistPlan(MPI_Comm comm, Plan plan, MPI_Datatype base, const RedistOptions& options = {});
  /// Frees requests, datatypes and the duplicate communicator (collective: destroy it on
  /// every rank before MPI_Finalize).
  ~RedistPlan();
  RedistPlan(RedistPlan&&) noexcept;
  RedistPlan& operator=(RedistPlan&&) noexcept;
  RedistPlan(const RedistPlan&) = delete;
  RedistPlan& operator=(const RedistPlan&) = delete;

  /// Moves this rank's part: `source` is its local array of the source distribution (at least
  /// source_elements() elements of base; unused, may be null, when the rank is not in the
  /// source grid), `target` its local array of the target distribution. Returns when this
  /// rank's sends and receives are complete (no barrier). Source and target must not overlap.
  void execute(const void* source, void* target);

  /// Elements of base this rank's source / target local arrays hold (0: not in that grid).
  std::int64_t source_elements() const;
  std::int64_t target_elements() const;

  const Plan& plan() const;
  const RedistStats& stats() const;
  Method method() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace choreo::redist
