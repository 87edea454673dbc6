// resilient_allreduce: paper 004's butterfly allreduce with redundant exchanges on real MPI.
// The protocol and why it cannot deadlock or leave a message behind are in the header and in
// docs/jitter.md; the comments here say how each step keeps those promises.
#include "choreo/mpi/resilient_allreduce.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/jitter/allreduce.hpp"
#include "resilient_stage_hook.hpp"

namespace choreo {

namespace detail {
ResilientStageHook resilient_stage_hook = nullptr;
void* resilient_stage_hook_data = nullptr;
}  // namespace detail

namespace {

constexpr const char* kCall = "resilient_allreduce";

// Tags: the message's kind in the low 7 bits, the call's sequence number (modulo what fits
// under MPI_TAG_UB, at least 256 values) above them. Matching does not rely on the sequence
// number (see "Why matching is exact" below); it makes a protocol error visible as a wrong
// tag instead of silently wrong data.
constexpr int kKinds = 128;
constexpr int kStage = 0;     // + s: a partial result for butterfly stage s (s < 32)
constexpr int kFinal = 32;    // + s: the final result, sent in place of the stage-s partial
constexpr int kCopy = 64;     // + j: redundant copy j of the final result (j < 32)
constexpr int kFoldIn = 96;   // rank 2j+1's vector to rank 2j
constexpr int kFoldOut = 97;  // the result back from 2j to 2j+1

// Why matching is exact. Every ordered pair of butterfly ranks (u, v) with v = u ^ 2^s
// exchanges, per call, exactly one stage message (a partial, or the final result for a rank
// that already had it) and, when s < T, exactly one copy; v receives the stage message with
// MPI_ANY_TAG (it cannot know which kind comes) and the copy with its own tag. u sends the
// stage message before the copy, and v posts the copy's receive (at the call's start) before
// the stage receive; calls follow each other in the same order on both sides. So by MPI's
// non-overtaking rule the n-th stage receive from u takes u's n-th stage message, and each
// copy receive takes its copy, however late each message is and however many calls have
// their receives still posted. The fold's messages go between ranks that are never butterfly
// partners and have their own tags.

struct Geometry {
  MPI_Aint true_lb = 0;
  std::size_t span = 0;  ///< bytes from the first element's first byte to the last's last
  bool contiguous = false;
};

/// One call's messages still in flight and the scratch they use.
struct Generation {
  std::vector<MPI_Request> requests;
  std::unique_ptr<std::byte[]> storage;
  std::size_t capacity = 0;
};

/// Per communicator: the private duplicate and the calls still in flight.
struct State {
  MPI_Comm comm = MPI_COMM_NULL;
  int tag_slots = 256;
  std::uint64_t sequence = 0;
  std::deque<Generation> in_flight;  // oldest first
  std::vector<Generation> spare;     // completed: storage to reuse
  ResilientStats stats;

  void recycle(Generation&& g) {
    g.requests.clear();
    if (spare.size() < static_cast<std::size_t>(kResilientMaxInFlight))
      spare.push_back(std::move(g));
  }
  /// Retires the in-flight calls whose requests have all completed (MPI_Testall, no waiting).
  void retire_completed() {
    for (auto it = in_flight.begin(); it != in_flight.end();) {
      int done = 0;
      MPI_Testall(static_cast<int>(it->requests.size()), it->requests.data(), &done,
                  MPI_STATUSES_IGNORE);
      if (done) {
        recycle(std::move(*it));
        it = in_flight.erase(it);
      } else {
        ++it;
      }
    }
  }
  /// Waits for the oldest call. Safe: its messages are sent by ranks inside that call (or
  /// later), and no rank waits in a call for anything this rank would only do afterwards.
  void complete_oldest() {
    Generation& g = in_flight.front();
    MPI_Waitall(static_cast<int>(g.requests.size()), g.requests.data(), MPI_STATUSES_IGNORE);
    recycle(std::move(g));
    in_flight.pop_front();
  }
  void complete_all() {
    while (!in_flight.empty()) complete_oldest();
  }
  Generation take(std::size_t bytes) {
    for (auto it = spare.begin(); it != spare.end(); ++it)
      if (it->capacity >= bytes) {
        Generation g = std::move(*it);
        spare.erase(it);
        return g;
      }
    Generation g;
    g.storage = std::make_unique_for_overwrite<std::byte[]>(bytes);
    g.capacity = bytes;
    return g;
  }
  int tag(int kind) const {
    return static_cast<int>(sequence % static_cast<std::uint64_t>(tag_slots)) * kKinds + kind;
  }
};

// Every State alive, for the MPI_COMM_SELF hook that completes their messages at MPI_Finalize
// (the standard deletes MPI_COMM_SELF's attributes first thing in MPI_Finalize, while MPI is
// fully usable; it does not promise to delete MPI_COMM_WORLD's, and MPI_Finalize must not
// meet pending requests).
std::mutex g_registry_mutex;
std::set<State*> g_registry;
bool g_finalize_hook = false;

int complete_at_finalize(MPI_Comm, int, void*, void*) {
  std::lock_guard lock(g_registry_mutex);
  for (State* s : g_registry) s->complete_all();
  return MPI_SUCCESS;
}

/// The attribute's delete callback (MPI_Comm_free of the user's communicator, or MPI_Finalize
/// for MPI_COMM_WORLD where the library does that): every rank frees its communicator, so
/// waiting for the messages of the last calls cannot deadlock.
int delete_state(MPI_Comm, int, void* value, void*) {
  auto* state = static_cast<State*>(value);
  state->complete_all();
  MPI_Comm_free(&state->comm);
  {
    std::lock_guard lock(g_registry_mutex);
    g_registry.erase(state);
  }
  delete state;
  return MPI_SUCCESS;
}

int state_keyval() {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &k, nullptr);
    return k;
  }();
  return keyval;
}

State* find_state(MPI_Comm comm) {
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, state_keyval(), &value, &found);
  return found ? static_cast<State*>(value) : nullptr;
}

/// The communicator's State, made at the first call: collective (MPI_Comm_dup), and every rank
/// makes its first call on `comm` together, so every rank creates it in the same call.
State& state_of(MPI_Comm comm) {
  if (State* s = find_state(comm)) return *s;
  auto state = std::make_unique<State>();
  MPI_Comm_dup(comm, &state->comm);
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(state->comm, MPI_TAG_UB, &value, &found);
  const int tag_ub = found ? *static_cast<int*>(value) : 32767;
  state->tag_slots = tag_ub / kKinds;  // >= 255: MPI_TAG_UB is at least 32767
  {
    std::lock_guard lock(g_registry_mutex);
    if (!g_finalize_hook) {
      int self_keyval = MPI_KEYVAL_INVALID;
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, complete_at_finalize, &self_keyval, nullptr);
      MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, nullptr);
      g_finalize_hook = true;
    }
    g_registry.insert(state.get());
  }
  MPI_Comm_set_attr(comm, state_keyval(), state.get());
  return *state.release();
}

Geometry geometry_of(MPI_Datatype type, int count) {
  Geometry g;
  MPI_Aint lb = 0, extent = 0, true_extent = 0;
  int size = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Type_get_true_extent(type, &g.true_lb, &true_extent);
  MPI_Type_size(type, &size);
  if (count > 0 && (extent <= 0 || true_extent < 0))
    throw Error(fmt::format(
        "{}: the datatype has extent {} (true extent {}); use a datatype with a positive extent",
        kCall, extent, true_extent));
  if (count > 0) g.span = static_cast<std::size_t>(true_extent + (count - 1) * extent);
  g.contiguous =
      g.true_lb == 0 && lb == 0 && extent == size && static_cast<MPI_Aint>(size) == true_extent;
  return g;
}

void check_arguments(int count, MPI_Datatype type, MPI_Op op, int ranks, int T) {
  if (count < 0) throw Error(fmt::format("{}: count must be 0 or more, not {}", kCall, count));
  if (type == MPI_DATATYPE_NULL)
    throw Error(fmt::format("{}: the datatype is MPI_DATATYPE_NULL; pass e.g. MPI_DOUBLE", kCall));
  if (op == MPI_OP_NULL)
    throw Error(fmt::format("{}: the op is MPI_OP_NULL; pass e.g. MPI_SUM", kCall));
  int commutative = 0;
  MPI_Op_commutative(op, &commutative);
  if (!commutative)
    throw Error(fmt::format(
        "{}: the op is not commutative, but the butterfly combines the partners' vectors in "
        "an order that depends on the rank; create the op with commute = 1 if it is "
        "commutative, or use MPI_Allreduce",
        kCall));
  const int stages = jitter::butterfly_stages(ranks);
  if (T < 0 || T > stages)
    throw Error(fmt::format(
        "{}: T = {} redundant exchanges, but {} ranks allow 0 to {} (the butterfly's stages, "
        "floor(log2 {})); pass T in that range (0 is the plain butterfly)",
        kCall, T, ranks, stages, ranks));
}

/// Copies count elements of `type` from `from` to `to`. Between the caller's buffers and the
/// scratch the whole span may be copied (scratch holes do not matter); into the caller's
/// receive buffer a non-contiguous type goes through MPI_Pack/MPI_Unpack, which leave its
/// holes alone.
void copy_span(const void* from, void* to, const Geometry& g) {
  std::memcpy(static_cast<std::byte*>(to) + g.true_lb,
              static_cast<const std::byte*>(from) + g.true_lb, g.span);
}
void copy_typed(const void* from, void* to, int count, MPI_Datatype type, const Geometry& g) {
  if (g.contiguous) {
    copy_span(from, to, g);
    return;
  }
  int bytes = 0;
  MPI_Pack_size(count, type, MPI_COMM_SELF, &bytes);
  std::vector<std::byte> packed(static_cast<std::size_t>(bytes));
  int position = 0;
  MPI_Pack(from, count, type, packed.data(), bytes, &position, MPI_COMM_SELF);
  position = 0;
  MPI_Unpack(packed.data(), bytes, &position, to, count, type, MPI_COMM_SELF);
}

/// Comm rank of butterfly rank u under the fold: u < rem stands for 2u (and 2u+1).
int comm_rank_of(int u, int rem) { return u < rem ? 2 * u : u + rem; }

void unexpected_tag(int tag, int expected_slot, int stage) {
  throw Error(fmt::format(
      "{}: internal error: stage {} received tag {} (kind {}, call slot {}; expected slot {}); "
      "this is a bug in choreo's matching, please report it",
      kCall, stage, tag, tag % kKinds, tag / kKinds, expected_slot));
}

}  // namespace

void resilient_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm, int T) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  check_arguments(count, type, op, ranks, T);
  const Geometry geometry = geometry_of(type, count);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* input = in_place ? recvbuf : sendbuf;
  if (count == 0) return;  // as MPI_Allreduce: nothing moves
  if (ranks == 1) {
    if (!in_place) copy_typed(sendbuf, recvbuf, count, type, geometry);
    return;
  }
  State& state = state_of(comm);
  ++state.stats.calls;
  const int K = jitter::butterfly_stages(ranks);
  const int p2 = 1 << K, rem = ranks - p2;
  struct SequenceStep {  // every rank advances the sequence once per call, however it leaves
    State& s;
    ~SequenceStep() { ++s.sequence; }
  } step{state};

  // The fold: rank 2j+1 hands its vector to 2j and waits for the result. Blocking is right
  // here: the result cannot come before 2j has received the vector.
  if (rank < 2 * rem && rank % 2 == 1) {
    MPI_Send(input, count, type, rank - 1, state.tag(kFoldIn), state.comm);
    MPI_Recv(recvbuf, count, type, rank - 1, state.tag(kFoldOut), state.comm, MPI_STATUS_IGNORE);
    return;
  }
  const bool stands_in = rank < 2 * rem;
  const int v = stands_in ? rank / 2 : rank - rem;

  // Scratch: slot 0 the input (then partial 0), 1..K the stage receives (each becomes the
  // next partial: MPI_Reduce_local reduces into it), K+1..K+T the copies, K+T+1 the folded
  // partner's vector. Every message still in flight at return uses these, never the
  // caller's buffers. Nothing is written to a slot while a send from it may be in flight;
  // MPI lets a send buffer be read meanwhile (MPI_Reduce_local reads partial s).
  state.retire_completed();
  while (state.in_flight.size() >= static_cast<std::size_t>(kResilientMaxInFlight))
    state.complete_oldest();
  const std::size_t stride = (geometry.span + 63) / 64 * 64;
  const int slots = K + T + 2;
  Generation g = state.take(stride * static_cast<std::size_t>(slots));
  auto slot = [&](int i) -> void* {
    return g.storage.get() + stride * static_cast<std::size_t>(i) - geometry.true_lb;
  };
  void* const copy_slot0 = slot(K + 1);
  g.requests.reserve(static_cast<std::size_t>(3 * K + 2 * T + 1));

  // The copies' receives first: a copy that arrives during any stage ends that stage's wait.
  // wait[j] is copy j's receive, wait[T] the current stage's: copies come first because
  // MPI_Waitany implementations tend to return the lowest completed index, and when a copy
  // and a partial are both there the copy saves the remaining stages.
  std::vector<MPI_Request> wait(static_cast<std::size_t>(1 + T), MPI_REQUEST_NULL);
  MPI_Request& stage_receive = wait[static_cast<std::size_t>(T)];
  for (int j = 0; j < T; ++j)
    MPI_Irecv(static_cast<std::byte*>(copy_slot0) + stride * static_cast<std::size_t>(j), count,
              type, comm_rank_of(v ^ (1 << j), rem), state.tag(kCopy + j), state.comm,
              &wait[static_cast<std::size_t>(j)]);

  copy_span(input, slot(0), geometry);
  if (stands_in) {
    MPI_Recv(slot(K + T + 1), count, type, rank + 1, state.tag(kFoldIn), state.comm,
             MPI_STATUS_IGNORE);
    MPI_Reduce_local(slot(K + T + 1), slot(0), count, type, op);
  }

  void* partial = slot(0);
  const void* result = nullptr;
  int next_stage = 0;  // stages below this one have sent their stage message
  const int slot_now = state.tag(0) / kKinds;
  for (int s = 0; s < K && result == nullptr; ++s) {
    const int partner = comm_rank_of(v ^ (1 << s), rem);
    MPI_Request send = MPI_REQUEST_NULL;
    MPI_Isend(partial, count, type, partner, state.tag(kStage + s), state.comm, &send);
    g.requests.push_back(send);
    MPI_Irecv(slot(1 + s), count, type, partner, MPI_ANY_TAG, state.comm, &stage_receive);
    next_stage = s + 1;
    if (detail::resilient_stage_hook)
      detail::resilient_stage_hook(s, v, detail::resilient_stage_hook_data);
    int index = MPI_UNDEFINED;
    MPI_Status status;
    MPI_Waitany(static_cast<int>(wait.size()), wait.data(), &index, &status);
    if (index == T) {
      if (status.MPI_TAG / kKinds != slot_now) unexpected_tag(status.MPI_TAG, slot_now, s);
      const int kind = status.MPI_TAG % kKinds;
      if (kind == kFinal + s) {
        result = slot(1 + s);  // the partner already had the result: take it
        ++state.stats.copies_taken;
      } else if (kind == kStage + s) {
        MPI_Reduce_local(partial, slot(1 + s), count, type, op);
        partial = slot(1 + s);
      } else {
        unexpected_tag(status.MPI_TAG, slot_now, s);
      }
    } else {
      // A copy came first. This stage's receive stays posted: the partner will send its
      // stage message (partial or final) whatever happens, and it must be received.
      result = static_cast<std::byte*>(copy_slot0) + stride * static_cast<std::size_t>(index);
      ++state.stats.copies_taken;
      g.requests.push_back(stage_receive);
      stage_receive = MPI_REQUEST_NULL;
    }
  }
  if (result == nullptr) result = partial;  // the butterfly finished first

  // What this rank still owes. Partners of the stages it skipped wait for a stage message:
  // they get the result, tagged final, which ends their wait too; their own stage messages to
  // this rank are received (into the skipped stages' slots) and dropped. Then the copies,
  // also to partners whose copy this rank took, because they posted a receive for it. Then
  // the folded partner's result.
  for (int s = next_stage; s < K; ++s) {
    const int partner = comm_rank_of(v ^ (1 << s), rem);
    MPI_Request send = MPI_REQUEST_NULL, drain = MPI_REQUEST_NULL;
    MPI_Isend(result, count, type, partner, state.tag(kFinal + s), state.comm, &send);
    MPI_Irecv(slot(1 + s), count, type, partner, MPI_ANY_TAG, state.comm, &drain);
    g.requests.push_back(send);
    g.requests.push_back(drain);
  }
  for (int j = 0; j < T; ++j) {
    MPI_Request send = MPI_REQUEST_NULL;
    MPI_Isend(result, count, type, comm_rank_of(v ^ (1 << j), rem), state.tag(kCopy + j),
              state.comm, &send);
    g.requests.push_back(send);
    g.requests.push_back(wait[static_cast<std::size_t>(j)]);  // copies not taken
  }
  if (stands_in) {
    MPI_Request send = MPI_REQUEST_NULL;
    MPI_Isend(result, count, type, rank + 1, state.tag(kFoldOut), state.comm, &send);
    g.requests.push_back(send);
  }
  copy_typed(result, recvbuf, count, type, geometry);

  // Carry what is still in flight (completed requests are MPI_REQUEST_NULL and cost nothing).
  int done = 0;
  MPI_Testall(static_cast<int>(g.requests.size()), g.requests.data(), &done, MPI_STATUSES_IGNORE);
  if (done)
    state.recycle(std::move(g));
  else
    state.in_flight.push_back(std::move(g));
}

void resilient_allreduce_complete(MPI_Comm comm) {
  if (State* s = find_state(comm)) s->complete_all();
}

ResilientStats resilient_allreduce_stats(MPI_Comm comm) {
  State* s = find_state(comm);
  if (s == nullptr) return {};
  ResilientStats out = s->stats;
  for (Generation& g : s->in_flight)
    for (MPI_Request& r : g.requests) {
      if (r == MPI_REQUEST_NULL) continue;
      int done = 0;
      MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      if (!done) ++out.pending_requests;
    }
  out.calls_in_flight = static_cast<int>(s->in_flight.size());
  int waiting = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->comm, &waiting, MPI_STATUS_IGNORE);
  out.message_waiting = waiting != 0;
  return out;
}

}  // namespace choreo
