// The recorder's state: the trace file and its buffer, the clock, and the ids it gives
// communicators and requests (record.hpp).
#include "record.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace choreo::intercept::record {
namespace {

/// The buffer is written out when it holds this much: large writes, a bounded footprint.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

struct RequestEntry {
  std::uint64_t id = 0;
  bool receive = false;
  bool persistent = false;
};

struct State {
  std::mutex mutex;
  int fd = -1;
  std::string path;
  std::string buffer;
  trace::Event event;
  std::uint64_t records = 0;
  std::int64_t last_end_ns = 0;
  std::uint32_t next_comm = 2;  // after kWorld and kSelf
  std::uint64_t next_request = 1;
  /// By handle: MPICH hands out one built-in handle for every send that completed at once, so
  /// one handle may stand for several live requests, taken in the order they were made.
  std::unordered_map<std::uintptr_t, std::deque<RequestEntry>> requests;
  /// The attribute under which a communicator carries its trace id (freed with it).
  int keyval = MPI_KEYVAL_INVALID;
};

State& state() {
  static State instance;
  return instance;
}

/// Request and communicator handles as map keys: integers in MPICH, pointers in Open MPI.
template <class Handle>
std::uintptr_t key(Handle handle) {
  if constexpr (std::is_pointer_v<Handle>)
    return reinterpret_cast<std::uintptr_t>(handle);
  else
    return static_cast<std::uintptr_t>(static_cast<std::make_unsigned_t<Handle>>(handle));
}

/// Writes the buffer out; on failure says so once and stops recording (the run goes on).
void flush(State& s) {
  std::size_t done = 0;
  while (done < s.buffer.size()) {
    const ssize_t n = ::write(s.fd, s.buffer.data() + done, s.buffer.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      say(fmt::format("CHOREO_RECORD: writing {} failed ({}); recording stops here", s.path,
                      std::strerror(errno)));
      active.store(false);
      ::close(s.fd);
      s.fd = -1;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  s.buffer.clear();
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::vector<int> world_ranks_of(MPI_Comm comm) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size)), world_ranks(ranks.size());
  for (int r = 0; r < size; ++r) ranks[static_cast<std::size_t>(r)] = r;
  PMPI_Group_translate_ranks(group, size, ranks.data(), world, world_ranks.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  return world_ranks;
}

/// Gives `comm` the next id and records where it came from. Under the lock.
std::uint32_t register_comm(State& s, MPI_Comm comm) {
  const std::uint32_t id = s.next_comm++;
  PMPI_Comm_set_attr(comm, s.keyval, reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)));
  return id;
}

}  // namespace

namespace detail {

std::mutex& lock() { return state().mutex; }

trace::Event& begin(trace::Kind kind, std::int64_t start_ns) {
  State& s = state();
  const std::int64_t end = now_ns();
  s.event.clear();
  s.event.kind = kind;
  s.event.gap_ns = std::max<std::int64_t>(0, start_ns - s.last_end_ns);
  s.event.duration_ns = std::max<std::int64_t>(0, end - start_ns);
  s.last_end_ns = std::max(s.last_end_ns, end);
  return s.event;
}

void commit() {
  State& s = state();
  if (s.fd < 0) return;
  trace::encode(s.event, s.buffer);
  ++s.records;
  if (s.buffer.size() >= kChunkBytes) flush(s);
}

}  // namespace detail

void open(const std::string& dir, int world_rank, const std::string& mpi_library) {
  State& s = state();
  ChoreoScope scope;  // the MPI calls below are the recorder's, not the program's
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    say(fmt::format("CHOREO_RECORD={}: cannot make that directory ({}); not recording", dir,
                    std::strerror(errno)));
    return;
  }
  s.path = dir + "/" + trace::file_name(world_rank);
  s.fd = ::open(s.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (s.fd < 0) {
    say(fmt::format("CHOREO_RECORD={}: cannot write {} ({}); not recording", dir, s.path,
                    std::strerror(errno)));
    return;
  }
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &s.keyval, nullptr);
  trace::Header header;
  header.writer = std::string("choreo ") + CHOREO_VERSION;
  header.rank = world_rank;
  PMPI_Comm_size(MPI_COMM_WORLD, &header.size);
  header.clock = "steady_clock ns";
  header.start_ns = now_ns();
  header.mpi_library = mpi_library;
  header.host = host_name();
  s.last_end_ns = header.start_ns;
  trace::encode(header, s.buffer);
  active.store(true);
}

void initialised() {
  if (!active.load()) return;
  const std::lock_guard guard(state().mutex);
  state().last_end_ns = now_ns();
}

void close() {
  if (!active.exchange(false)) return;
  State& s = state();
  const std::lock_guard guard(s.mutex);
  s.event.clear();
  s.event.kind = trace::Kind::End;
  // The computation after the last call, until MPI_Finalize: part of the program's time.
  s.event.gap_ns = std::max<std::int64_t>(0, now_ns() - s.last_end_ns);
  s.event.records = s.records;
  trace::encode(s.event, s.buffer);
  flush(s);
  if (s.fd >= 0) ::close(s.fd);
  s.fd = -1;
  s.requests.clear();
}

std::uint32_t comm_id(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return trace::kWorld;
  if (comm == MPI_COMM_SELF) return trace::kSelf;
  if (comm == MPI_COMM_NULL) return trace::kNoComm;
  State& s = state();
  ChoreoScope scope;
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, s.keyval, &value, &found);
  if (found) return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(value));
  const std::int64_t now = now_ns();
  std::vector<int> members = world_ranks_of(comm);
  std::uint32_t id = 0;
  write(trace::Kind::CommCreate, now, [&](trace::Event& e) {
    id = register_comm(s, comm);
    e.comm = trace::kNoParent;
    e.new_comm = id;
    e.members = std::move(members);
  });
  return id;
}

void comm_created(MPI_Comm parent, MPI_Comm created, std::int64_t start_ns) {
  const std::uint32_t parent_id = comm_id(parent);
  State& s = state();
  ChoreoScope scope;
  std::vector<int> members;
  if (created != MPI_COMM_NULL) members = world_ranks_of(created);
  write(trace::Kind::CommCreate, start_ns, [&](trace::Event& e) {
    e.comm = parent_id;
    e.new_comm = created == MPI_COMM_NULL ? trace::kNoComm : register_comm(s, created);
    e.members = std::move(members);
  });
}

int peer(int rank) {
  if (rank == MPI_ANY_SOURCE) return trace::kAnySource;
  if (rank == MPI_PROC_NULL) return trace::kProcNull;
  return rank;
}

int tag(int tag) { return tag == MPI_ANY_TAG ? trace::kAnyTag : tag; }

std::int64_t bytes(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<std::int64_t>(count) * size;
}

trace::Status status(const MPI_Status& status) {
  int count = 0;
  PMPI_Get_count(&status, MPI_BYTE, &count);
  return {peer(status.MPI_SOURCE), tag(status.MPI_TAG), count == MPI_UNDEFINED ? 0 : count};
}

std::uint64_t new_request(MPI_Request handle, bool receive, bool persistent) {
  State& s = state();
  const std::uint64_t id = s.next_request++;
  s.requests[key(handle)].push_back({id, receive, persistent});
  return id;
}

std::uint64_t started(MPI_Request handle) {
  const State& s = state();
  const auto it = s.requests.find(key(handle));
  return it == s.requests.end() ? 0 : it->second.front().id;
}

void completed(trace::Event& event, MPI_Request handle, const MPI_Status& mpi_status) {
  State& s = state();
  const auto it = s.requests.find(key(handle));
  if (it == s.requests.end()) return;
  const RequestEntry entry = it->second.front();
  trace::Completion c;
  c.request = entry.id;
  c.has_status = entry.receive;
  if (c.has_status) c.status = status(mpi_status);
  event.completed.push_back(c);
  if (entry.persistent) return;
  it->second.pop_front();
  if (it->second.empty()) s.requests.erase(it);
}

std::uint64_t freed(MPI_Request handle) {
  State& s = state();
  const auto it = s.requests.find(key(handle));
  if (it == s.requests.end()) return 0;
  const std::uint64_t id = it->second.front().id;
  it->second.pop_front();
  if (it->second.empty()) s.requests.erase(it);
  return id;
}

void completions(std::int64_t start_ns, std::span<const MPI_Request> before,
                 const MPI_Status* statuses, std::span<const int> indices, bool all) {
  State& s = state();
  const std::lock_guard guard(s.mutex);
  const auto known = [&](std::size_t i) {
    return before[i] != MPI_REQUEST_NULL && s.requests.contains(key(before[i]));
  };
  bool any = false;
  if (all)
    for (std::size_t i = 0; i < before.size() && !any; ++i) any = known(i);
  for (int i : indices) any = any || known(static_cast<std::size_t>(i));
  if (!any) return;
  trace::Event& e = detail::begin(trace::Kind::Complete, start_ns);
  if (all)
    for (std::size_t i = 0; i < before.size(); ++i) {
      if (before[i] != MPI_REQUEST_NULL) completed(e, before[i], statuses[i]);
    }
  for (std::size_t k = 0; k < indices.size(); ++k)
    completed(e, before[static_cast<std::size_t>(indices[k])], statuses[k]);
  detail::commit();
}

}  // namespace choreo::intercept::record
