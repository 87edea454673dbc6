#pragma once
// choreo's MPI trace format (.ctr, "choreo trace"): what libchoreo_pmpi.so writes per rank under
// CHOREO_RECORD=DIR and `choreo import` reads (docs/formats.md has the byte layout).
//
// A file is a header, then records. Numbers are LEB128 varints (signed ones zigzag-coded), so
// a point-to-point call takes about ten bytes. Ranks are the ranks of the call's communicator,
// communicators and requests are the writer's own small ids (communicator 0 is MPI_COMM_WORLD,
// 1 MPI_COMM_SELF), and every record carries the time since the previous call ended (the
// program's computation) and the time the call took. A trace ends with an End record; a file
// without one was cut short. The same encoder and decoder serve the writer and every reader.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace choreo::trace {

inline constexpr std::string_view kMagic = "CHOREOTR";  ///< the file's first 8 bytes
inline constexpr std::uint32_t kFormatVersion = 1;

/// Peers and tags as the trace spells them, whatever the MPI library's constants are.
inline constexpr int kAnySource = -1;
inline constexpr int kProcNull = -2;
inline constexpr int kAnyTag = -1;
inline constexpr std::uint32_t kWorld = 0;  ///< MPI_COMM_WORLD's communicator id
inline constexpr std::uint32_t kSelf = 1;   ///< MPI_COMM_SELF's
/// A CommCreate's parent when the writer met the communicator only in use (it was made by a
/// function the writer does not intercept).
inline constexpr std::uint32_t kNoParent = 0xFFFFFFFFu;
/// A CommCreate's new id when the creating call gave MPI_COMM_NULL to this rank (a split with
/// MPI_UNDEFINED): the call still counts as one creation on the parent.
inline constexpr std::uint32_t kNoComm = 0xFFFFFFFFu;

enum class Kind : std::uint8_t {
  Send = 1,     ///< MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Bsend
  Recv,         ///< MPI_Recv, with the status's source, tag and bytes
  Isend,        ///< MPI_Isend, MPI_Issend: starts request `request`
  Irecv,        ///< MPI_Irecv: starts request `request`; its status comes at completion
  Sendrecv,     ///< MPI_Sendrecv, MPI_Sendrecv_replace: a send and a receive (with its status)
  SendInit,     ///< MPI_Send_init, MPI_Ssend_init: a persistent send, started by Start
  RecvInit,     ///< MPI_Recv_init
  Start,        ///< MPI_Start, MPI_Startall: `requests` start, in order
  Complete,     ///< MPI_Wait*, MPI_Test* that completed something: `completed`, in order
  Collective,   ///< a blocking collective (`collective`)
  CommCreate,   ///< a communicator made (or first met): its members' world ranks
  RequestFree,  ///< MPI_Request_free of `request`
  End,          ///< written at MPI_Finalize: `records` counts the records before it
};

enum class Collective : std::uint8_t {
  Barrier,
  Bcast,
  Reduce,
  Allreduce,
  Allgather,
  Alltoall,
  Alltoallv,
  Gather,
  Scatter,
};
inline constexpr int kCollectiveCount = 9;
/// "barrier", "bcast", ...: the collective's name in generator specs and --algorithm.
std::string_view collective_name(Collective collective);

/// A receive's status: the source and tag it matched, the bytes that arrived.
struct Status {
  int source = 0;
  int tag = 0;
  std::int64_t bytes = 0;
  friend bool operator==(const Status&, const Status&) = default;
};

struct Completion {
  std::uint64_t request = 0;
  bool has_status = false;  ///< a receive: `status` is what it matched
  Status status;
  friend bool operator==(const Completion&, const Completion&) = default;
};

/// One record, decoded. Fields a kind does not use stay at their defaults.
struct Event {
  Kind kind = Kind::End;
  std::int64_t gap_ns = 0;       ///< since the previous record's call ended
  std::int64_t duration_ns = 0;  ///< of this call
  std::uint32_t comm = 0;
  int peer = 0;  ///< send: destination; receive: source (kAnySource); rank of `comm`
  int tag = 0;
  std::int64_t bytes = 0;               ///< send: bytes sent; receive: bytes the buffer holds
  std::uint64_t request = 0;            ///< Isend, Irecv, SendInit, RecvInit, RequestFree
  Status status;                        ///< Recv, Sendrecv
  int recv_peer = 0;                    ///< Sendrecv's receive: source
  int recv_tag = 0;                     ///< and tag
  std::int64_t recv_bytes = 0;          ///< and its buffer's bytes
  std::vector<std::uint64_t> requests;  ///< Start
  std::vector<Completion> completed;    ///< Complete
  Collective collective = Collective::Barrier;
  int root = 0;  ///< rooted collectives
  /// Collective: Bcast, Reduce, Allreduce the vector; Allgather, Alltoall, Gather, Scatter one
  /// rank's block; Barrier and Alltoallv 0.
  std::int64_t collective_bytes = 0;
  std::vector<std::int64_t> send_bytes;  ///< Alltoallv: bytes to each rank of `comm`
  std::uint32_t new_comm = kNoComm;      ///< CommCreate
  std::vector<int> members;              ///< CommCreate: world ranks, in the new ranks' order
  std::uint64_t records = 0;             ///< End

  /// Resets every field, keeping the vectors' capacity (the writer reuses one Event).
  void clear();
  friend bool operator==(const Event&, const Event&) = default;
};

struct Header {
  std::uint32_t format_version = kFormatVersion;
  std::string writer;         ///< "choreo 0.1.0"
  int rank = 0;               ///< in MPI_COMM_WORLD
  int size = 0;               ///< of MPI_COMM_WORLD
  std::string clock;          ///< the clock gaps and durations were read from
  std::int64_t start_ns = 0;  ///< that clock at MPI_Init
  std::string mpi_library;    ///< MPI_Get_library_version's first line
  std::string host;
  friend bool operator==(const Header&, const Header&) = default;
};

/// Appends the header's bytes to `out`.
void encode(const Header& header, std::string& out);
/// Appends the record's bytes to `out`.
void encode(const Event& event, std::string& out);

struct RankTrace {
  Header header;
  std::vector<Event> events;      ///< without the End record
  std::int64_t final_gap_ns = 0;  ///< from the last call's end to MPI_Finalize (End's gap)
};

/// Decodes one trace file's bytes; `name` names it in errors. Throws choreo::Error, one line
/// saying where and what, for a file that is not a trace, of a newer format, cut short or
/// corrupt.
RankTrace decode(std::string_view bytes, const std::string& name);

/// "rank-<r>.ctr".
std::string file_name(int rank);

/// Reads DIR/rank-0.ctr .. rank-<P-1>.ctr, P from rank 0's header; checks that every file is
/// there and that the headers agree.
std::vector<RankTrace> read_directory(const std::filesystem::path& dir);

}  // namespace choreo::trace
