// RedistPlan: a redistribution built once (comm sets, datatypes, persistent requests) and
// executed many times, with derived datatypes from array to array or through pack buffers.
#include <fmt/format.h>

#include <climits>
#include <cstddef>
#include <utility>

#include "choreo/error.hpp"
#include "choreo/redist/local_array.hpp"
#include "choreo/redist/mpi.hpp"

namespace choreo::redist {
namespace {

void check(int status, const char* call) {
  if (status != MPI_SUCCESS)
    throw Error(fmt::format("{} failed (MPI error {}) in a redistribution", call, status));
}

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}

/// One message (or the local copy) of this rank, with its datatype on this rank's side.
struct Message {
  const Transfer* transfer = nullptr;
  SectionType type;
  int peer = 0;
  std::vector<char> buffer;  ///< Pack only: the packed data
  int packed_bytes = 0;      ///< Pack only: MPI_Pack_size of the type
};

std::int64_t triplet_bytes(const Transfer& t) {
  std::int64_t n = 0;
  for (const DimTransfer& d : t.dims)
    n += static_cast<std::int64_t>(d.global.size() * sizeof(Triplet) +
                                   2 * d.source_local.size() * sizeof(LocalTriplet));
  return n;
}

const char* byte_ptr(const void* p, MPI_Aint offset) {
  return static_cast<const char*>(p) + offset;
}

}  // namespace

struct RedistPlan::State {
  Plan plan;
  RedistOptions options;
  MPI_Datatype base = MPI_DATATYPE_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  std::int64_t base_size = 0;
  std::vector<Message> sends, receives;  ///< a local copy is in both (same transfer)
  std::vector<MPI_Request> requests;     ///< receives first, then sends
  const void* bound_source = nullptr;
  void* bound_target = nullptr;
  bool bound = false;
  RedistStats stats;

  ~State() {
    free_requests();
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  void free_requests() {
    for (MPI_Request& r : requests)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    requests.clear();
    bound = false;
  }

  void build() {
    const double start = MPI_Wtime();
    MPI_Count size = 0;
    check(MPI_Type_size_x(base, &size), "MPI_Type_size_x");
    base_size = static_cast<std::int64_t>(size);
    for (const Transfer* t : plan.receives_of(rank))
      receives.push_back({t, section_type(*t, false, base), t->source_rank, {}, 0});
    for (const Transfer* t : plan.sends_of(rank))
      sends.push_back({t, section_type(*t, true, base), t->target_rank, {}, 0});
    for (auto* list : {&receives, &sends})
      for (Message& m : *list) {
        const std::int64_t bytes = m.transfer->elements * base_size;
        stats.metadata_bytes += triplet_bytes(*m.transfer);
        stats.type_constructors += m.type.constructors();
        const bool local = m.transfer->local_copy();
        if (list == &sends) {
          (local ? stats.copy_bytes : stats.send_bytes) += bytes;
          stats.sends += !local;
        } else {
          stats.receive_bytes += local ? 0 : bytes;
          stats.receives += !local;
        }
        if (options.method == Method::Pack && !(local && list == &receives)) {
          check(MPI_Pack_size(1, m.type.type(), comm, &m.packed_bytes), "MPI_Pack_size");
          m.buffer.resize(static_cast<std::size_t>(m.packed_bytes));
          stats.buffer_bytes += m.packed_bytes;
        }
      }
    if (options.method == Method::Pack) bind_pack_requests();
    stats.setup_seconds = MPI_Wtime() - start;
  }

  void bind_pack_requests() {
    for (Message& m : receives) {
      if (m.transfer->local_copy()) continue;
      requests.emplace_back();
      check(MPI_Recv_init(m.buffer.data(), m.packed_bytes, MPI_PACKED, m.peer, options.tag, comm,
                          &requests.back()),
            "MPI_Recv_init");
    }
    for (Message& m : sends) {
      if (m.transfer->local_copy()) continue;
      requests.emplace_back();
      check(MPI_Send_init(m.buffer.data(), m.packed_bytes, MPI_PACKED, m.peer, options.tag, comm,
                          &requests.back()),
            "MPI_Send_init");
    }
  }

  void bind_datatype_requests(const void* source, void* target) {
    free_requests();
    for (Message& m : receives) {
      requests.emplace_back();
      check(MPI_Recv_init(static_cast<char*>(target) + m.type.offset_bytes(), 1, m.type.type(),
                          m.peer, options.tag, comm, &requests.back()),
            "MPI_Recv_init");
    }
    for (Message& m : sends) {
      requests.emplace_back();
      check(MPI_Send_init(byte_ptr(source, m.type.offset_bytes()), 1, m.type.type(), m.peer,
                          options.tag, comm, &requests.back()),
            "MPI_Send_init");
    }
    bound_source = source;
    bound_target = target;
    bound = true;
  }

  void run_datatype(const void* source, void* target) {
    if (!bound || source != bound_source || target != bound_target)
      bind_datatype_requests(source, target);
    start_and_wait();
  }

  void run_pack(const void* source, void* target) {
    Message* local = nullptr;
    for (Message& m : sends) {
      int position = 0;
      check(MPI_Pack(byte_ptr(source, m.type.offset_bytes()), 1, m.type.type(), m.buffer.data(),
                     m.packed_bytes, &position, comm),
            "MPI_Pack");
      if (m.transfer->local_copy()) local = &m;
    }
    start_and_wait_started([&] {
      if (local == nullptr) return;
      for (Message& r : receives)
        if (r.transfer->local_copy()) unpack(local->buffer, local->packed_bytes, r, target);
    });
    for (Message& m : receives)
      if (!m.transfer->local_copy()) unpack(m.buffer, m.packed_bytes, m, target);
  }

  void unpack(std::vector<char>& buffer, int bytes, const Message& m, void* target) {
    int position = 0;
    check(MPI_Unpack(buffer.data(), bytes, &position,
                     static_cast<char*>(target) + m.type.offset_bytes(), 1, m.type.type(), comm),
          "MPI_Unpack");
  }

  void start_and_wait() {
    start_and_wait_started([] {});
  }

  /// Starts every request, runs `meanwhile`, waits for all.
  template <typename Meanwhile>
  void start_and_wait_started(Meanwhile meanwhile) {
    const int n = static_cast<int>(requests.size());
    if (n > 0) check(MPI_Startall(n, requests.data()), "MPI_Startall");
    meanwhile();
    if (n > 0) check(MPI_Waitall(n, requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
};

RedistPlan::RedistPlan(MPI_Comm comm, const ArrayDistribution& from, const ArrayDistribution& to,
                       MPI_Datatype base, const RedistOptions& options) {
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  validate(from, size);
  validate(to, size);
  const double start = MPI_Wtime();
  Plan plan = make_plan(from, to, options.comm_sets);
  const double seconds = MPI_Wtime() - start;
  *this = RedistPlan(comm, std::move(plan), base, options);
  state_->stats.plan_seconds = seconds;
}

RedistPlan::RedistPlan(MPI_Comm comm, Plan plan, MPI_Datatype base, const RedistOptions& options) {
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  validate(plan.from, size);
  validate(plan.to, size);
  if (options.tag < 0 || options.tag > 32767)
    throw Error(
        fmt::format("tag {} is outside 0..32767 (the smallest MPI_TAG_UB); pick a tag in "
                    "that range",
                    options.tag));
  if (options.method != Method::Datatype && options.method != Method::Pack)
    throw Error("unknown redistribution method; use Method::Datatype or Method::Pack");
  state_ = std::make_unique<State>();
  state_->plan = std::move(plan);
  state_->options = options;
  state_->base = base;
  state_->rank = comm_rank(comm);
  check(MPI_Comm_dup(comm, &state_->comm), "MPI_Comm_dup");
  state_->build();
}

RedistPlan::~RedistPlan() = default;
RedistPlan::RedistPlan(RedistPlan&&) noexcept = default;
RedistPlan& RedistPlan::operator=(RedistPlan&&) noexcept = default;

void RedistPlan::execute(const void* source, void* target) {
  if (!state_)
    throw Error("RedistPlan::execute on a moved-from plan; execute the plan it moved to");
  State& s = *state_;
  const bool sends = !s.sends.empty(), receives = !s.receives.empty();
  if ((sends && source == nullptr) || (receives && target == nullptr))
    throw Error(fmt::format("rank {} {} but was given no {} array; pass its local array", s.rank,
                            sends && source == nullptr ? "holds source data" : "receives data",
                            sends && source == nullptr ? "source" : "target"));
  if (s.options.method == Method::Pack)
    s.run_pack(source, target);
  else
    s.run_datatype(source, target);
}

std::int64_t RedistPlan::source_elements() const {
  return local_storage(state_->plan.from, state_->rank);
}
std::int64_t RedistPlan::target_elements() const {
  return local_storage(state_->plan.to, state_->rank);
}
const Plan& RedistPlan::plan() const { return state_->plan; }
const RedistStats& RedistPlan::stats() const { return state_->stats; }
Method RedistPlan::method() const { return state_->options.method; }

}  // namespace choreo::redist
