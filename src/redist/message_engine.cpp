#include "message_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <thread>

#include "choreo/core/error.hpp"
#include "message_chunks.hpp"
#include "mpi_check.hpp"
#include "mpi_quirks.hpp"

namespace choreo::redist {
namespace {

int int_count(std::int64_t count, int peer) {
  if (count > INT_MAX)
    throw Error(fmt::format(
        "a message to or from rank {} holds {} elements, more than MPI's int counts allow; "
        "redistribute the array in parts, or with a larger element type",
        peer, count));
  return static_cast<int>(count);
}

/// A base type choreo may copy with memcpy: no gaps, no displacement.
bool is_plain(MPI_Datatype base, MPI_Aint& extent, std::int64_t& size) {
  MPI_Aint lb = 0, true_lb = 0, true_extent = 0;
  MPI_Count bytes = 0;
  check_mpi(MPI_Type_get_extent(base, &lb, &extent), "MPI_Type_get_extent");
  check_mpi(MPI_Type_get_true_extent(base, &true_lb, &true_extent), "MPI_Type_get_true_extent");
  check_mpi(MPI_Type_size_x(base, &bytes), "MPI_Type_size_x");
  size = static_cast<std::int64_t>(bytes);
  return lb == 0 && true_lb == 0 && extent == static_cast<MPI_Aint>(bytes) &&
         true_extent == extent && bytes > 0;
}

/// Elements per call of the copy loops (a strided run is one call).
double run_length(const LayoutShape& shape) {
  return shape.pieces > 0 ? static_cast<double>(shape.elements) / static_cast<double>(shape.pieces)
                          : 0;
}
/// Below this mean run length the local copy is staged through a buffer (local_buffer_).
constexpr double kStagedRunLength = 16;

std::int64_t sections_bytes(const std::vector<LocalSection>& sections) {
  std::int64_t n = static_cast<std::int64_t>(sections.capacity() * sizeof(LocalSection));
  for (const LocalSection& s : sections)
    for (const auto& list : s.dims)
      n += static_cast<std::int64_t>(list.capacity() * sizeof(LocalTriplet) + sizeof(list));
  return n;
}

}  // namespace

const char* to_string(SidePath path) {
  switch (path) {
    case SidePath::Direct:
      return "direct";
    case SidePath::Datatype:
      return "datatype";
    case SidePath::Pack:
      return "pack";
    case SidePath::Shared:
      return "shared";
  }
  return "?";
}

bool uses_node_exchange(Method method) {
  return method == Method::Auto || method == Method::Shared;
}

SidePath choose_path(Method method, const LayoutShape& shape, std::int64_t bytes, bool plain_base,
                     bool avoid_datatypes) {
  if (method == Method::Datatype) return SidePath::Datatype;
  if (method == Method::Pack) return SidePath::Pack;
  if (!plain_base) return SidePath::Datatype;
  if (shape.contiguous()) return SidePath::Direct;
  return bytes <= kDatatypeMaxBytes && !avoid_datatypes ? SidePath::Datatype : SidePath::Pack;
}

MessageEngine::MessageEngine(MPI_Comm comm, const RankPlan& plan, MPI_Datatype base, Method method,
                             int tag)
    : comm_(comm), rank_(plan.rank), tag_(tag), method_(method), base_(base) {
  try {
    build(plan, true);
  } catch (...) {
    // A throw after the exchange was built is this rank's alone (a message too large for an
    // int count, an MPI error): the exchange's collective frees would wait for ranks that went
    // on, so it is left to MPI_Finalize.
    static_cast<void>(exchange_.release());
    throw;
  }
}

MessageEngine::MessageEngine(const RankPlan& plan, MessageEngine&& previous)
    : comm_(previous.comm_),
      rank_(plan.rank),
      exchange_(std::move(previous.exchange_)),
      tag_(previous.tag_),
      method_(previous.method_),
      base_(previous.base_) {
  try {
    build(plan, false);
  } catch (...) {
    previous.exchange_ = std::move(exchange_);  // `previous` stays whole, its links with it
    throw;
  }
}

void MessageEngine::build(const RankPlan& plan, bool new_exchange) {
  const double start = MPI_Wtime();
  plain_base_ = is_plain(base_, extent_, element_bytes_);
  avoid_datatypes_ = method_ != Method::Datatype && derived_datatypes_unsafe();
  std::vector<Side> sides[2];  // receives, sends
  for (const auto* side : {&plan.receives, &plan.sends}) {
    const bool sending = side == &plan.sends;
    for (const PeerMessage& m : side->messages) {
      Side s;
      s.peer = m.peer;
      s.elements = m.elements;
      s.sections = message_sections(plan, *side, m);
      s.shape = shape_of(s.sections);
      if (m.peer == rank_) {
        (sending ? local_out_ : local_in_) = std::move(s);
        has_local_ = true;
        continue;
      }
      sides[sending ? 1 : 0].push_back(std::move(s));
    }
  }
  // Packing into shared memory copies with memcpy: a contiguous base type only (the same on
  // every rank, so every rank takes part in the exchange's collectives or none does).
  if (kNodeExchangeAvailable && new_exchange && uses_node_exchange(method_) && plain_base_) {
    std::vector<NodeCandidate> candidates[2];
    for (int k = 0; k < 2; ++k)
      for (const Side& s : sides[k])
        candidates[k].push_back({s.peer, s.elements * element_bytes_, s.shape.contiguous(),
                                 outer_extent(s.sections),
                                 outer_elements(s.sections) * element_bytes_});
    exchange_ = std::make_unique<NodeExchange>(comm_, tag_, candidates[1], candidates[0],
                                               kDatatypeMaxBytes);
  }
  for (int k = 0; k < 2; ++k)
    for (Side& s : sides[k]) {
      build_side(s, k == 1);
      (k == 1 ? sends_ : receives_).push_back(std::move(s));
    }
  // Without memcpy (a base type with gaps) the local copy goes through MPI too.
  if (has_local_ && !plain_base_) {
    for (Side* s : {&local_out_, &local_in_}) build_side(*s, s == &local_out_);
    sends_.push_back(std::move(local_out_));
    receives_.push_back(std::move(local_in_));
    has_local_ = false;
  }
  // Lay the pack buffers out: each packing side's size becomes its offset.
  for (auto* list : {&sends_, &receives_}) {
    std::int64_t offset = 0;
    for (Side& s : *list)
      if (s.path == SidePath::Pack) std::swap(s.buffer_offset, offset), offset += s.buffer_offset;
    (list == &sends_ ? send_buffer_ : receive_buffer_).resize(static_cast<std::size_t>(offset));
  }
  // Ring order: the first send goes to the next rank up, so that not every rank starts with
  // the same peer.
  const auto next_up =
      std::find_if(sends_.begin(), sends_.end(), [&](const Side& s) { return s.peer > rank_; });
  std::rotate(sends_.begin(), next_up, sends_.end());
  receive_requests_.assign(receives_.size(), MPI_REQUEST_NULL);  // stays null where shared
  send_requests_.assign(sends_.size(), MPI_REQUEST_NULL);
  completed_.assign(receives_.size(), 0);
  mpi_receives_ = mpi_sends_ = 0;
  for (const Side& s : receives_) mpi_receives_ += s.path == SidePath::Shared ? 0 : 1;
  for (const Side& s : sends_) mpi_sends_ += s.path == SidePath::Shared ? 0 : 1;
  if (exchange_) stats_.buffer_bytes += exchange_->segment_bytes();
  if (has_local_) {
    stats_.copy_bytes = local_out_.elements * element_bytes_;
    // Method::Datatype promises no buffers; a pair of matrices copies as fast without one.
    if (method_ != Method::Datatype && !matrix_pair(local_out_.sections, local_in_.sections) &&
        std::min(run_length(local_out_.shape), run_length(local_in_.shape)) < kStagedRunLength) {
      local_buffer_.resize(static_cast<std::size_t>(stats_.copy_bytes));
      stats_.buffer_bytes += stats_.copy_bytes;
    }
  }
  stats_.metadata_bytes += sections_bytes(local_out_.sections) + sections_bytes(local_in_.sections);
  stats_.setup_seconds = MPI_Wtime() - start;
}

void MessageEngine::build_side(Side& s, bool sending) {
  const std::int64_t bytes = s.elements * element_bytes_;
  s.shared = exchange_ && s.peer != rank_
                 ? (sending ? exchange_->send_index(s.peer) : exchange_->receive_index(s.peer))
                 : -1;
  if (s.shared >= 0 &&
      (sending ? exchange_->send_bytes(s.shared) : exchange_->receive_bytes(s.shared)) != bytes)
    throw Error(fmt::format(
        "internal error: the message {} rank {} changed size from the one its shared-memory "
        "link was built for",
        sending ? "to" : "from", s.peer));
  s.path = s.shared >= 0 ? SidePath::Shared
                         : choose_path(method_, s.shape, bytes, plain_base_, avoid_datatypes_);
  if (s.peer != rank_) {
    (sending ? stats_.sends : stats_.receives) += 1;
    (sending ? stats_.send_bytes : stats_.receive_bytes) += bytes;
    (s.path == SidePath::Direct     ? stats_.direct_sides
     : s.path == SidePath::Datatype ? stats_.datatype_sides
     : s.path == SidePath::Shared   ? stats_.shared_sides
                                    : stats_.pack_sides) += 1;
  }
  if (s.path == SidePath::Datatype || (s.path == SidePath::Pack && !plain_base_)) {
    s.type = layout_type(s.sections, base_);
    stats_.type_constructors += s.type.constructors();
  }
  if (s.path == SidePath::Pack) {
    std::int64_t buffer = bytes;
    if (!plain_base_) {
      int packed = 0;
      check_mpi(MPI_Pack_size(1, s.type.type(), comm_, &packed), "MPI_Pack_size");
      buffer = packed;
      s.wire_count = packed;
    } else {
      s.wire_count = int_count(s.elements, s.peer);
    }
    s.buffer_offset = buffer;  // its size, until the constructor lays the buffers out
    stats_.buffer_bytes += buffer;
  } else if (s.path == SidePath::Direct) {
    s.wire_count = int_count(s.elements, s.peer);
  }
  if (s.path == SidePath::Shared) {
    // Cut as the sender cut it (the same outermost indices per chunk on both ends).
    s.chunks = split_outer(s.sections, sending ? exchange_->send_per_chunk(s.shared)
                                               : exchange_->receive_per_chunk(s.shared));
    const int expected =
        sending ? exchange_->send_chunks(s.shared) : exchange_->receive_chunks(s.shared);
    if (static_cast<int>(s.chunks.size()) != expected)
      throw Error(fmt::format(
          "internal error: the message {} rank {} makes {} chunks here and {} at its other end",
          sending ? "to" : "from", s.peer, s.chunks.size(), expected));
    for (const auto& chunk : s.chunks) stats_.metadata_bytes += sections_bytes(chunk);
  }
  // Only the pack loops walk the sections again.
  if (!(s.path == SidePath::Pack && plain_base_)) {
    s.sections.clear();
    s.sections.shrink_to_fit();
  }
  stats_.metadata_bytes += sections_bytes(s.sections);
}

void MessageEngine::post_receives(void* target) {
  char* base = static_cast<char*>(target);
  for (std::size_t k = 0; k < receives_.size(); ++k) {
    Side& s = receives_[k];
    MPI_Request* r = &receive_requests_[k];
    switch (s.path) {
      case SidePath::Shared:
        break;
      case SidePath::Direct:
        check_mpi(
            MPI_Irecv(base + s.shape.offset * extent_, s.wire_count, base_, s.peer, tag_, comm_, r),
            "MPI_Irecv");
        break;
      case SidePath::Datatype:
        check_mpi(MPI_Irecv(base + s.type.offset_bytes(), 1, s.type.type(), s.peer, tag_, comm_, r),
                  "MPI_Irecv");
        break;
      case SidePath::Pack:
        check_mpi(MPI_Irecv(receive_buffer_.data() + s.buffer_offset, s.wire_count,
                            plain_base_ ? base_ : MPI_PACKED, s.peer, tag_, comm_, r),
                  "MPI_Irecv");
        break;
    }
  }
}

void MessageEngine::send_all(const void* source) {
  const char* base = static_cast<const char*>(source);
  for (std::size_t k = 0; k < sends_.size(); ++k) {
    Side& s = sends_[k];
    MPI_Request* r = &send_requests_[k];
    switch (s.path) {
      case SidePath::Shared:  // chunk by chunk, in move_shared()
        break;
      case SidePath::Direct:
        check_mpi(
            MPI_Isend(base + s.shape.offset * extent_, s.wire_count, base_, s.peer, tag_, comm_, r),
            "MPI_Isend");
        break;
      case SidePath::Datatype:
        check_mpi(MPI_Isend(base + s.type.offset_bytes(), 1, s.type.type(), s.peer, tag_, comm_, r),
                  "MPI_Isend");
        break;
      case SidePath::Pack: {
        char* buffer = send_buffer_.data() + s.buffer_offset;
        if (plain_base_) {
          pack(s.sections, source, buffer, element_bytes_);
        } else {
          int position = 0;
          check_mpi(MPI_Pack(base + s.type.offset_bytes(), 1, s.type.type(), buffer, s.wire_count,
                             &position, comm_),
                    "MPI_Pack");
        }
        check_mpi(MPI_Isend(buffer, s.wire_count, plain_base_ ? base_ : MPI_PACKED, s.peer, tag_,
                            comm_, r),
                  "MPI_Isend");
        break;
      }
    }
  }
}

void MessageEngine::copy_local(const void* source, void* target) {
  if (!has_local_) return;
  if (local_buffer_.empty())
    return copy_between(local_out_.sections, source, local_in_.sections, target, element_bytes_);
  pack(local_out_.sections, source, local_buffer_.data(), element_bytes_);
  unpack(local_in_.sections, local_buffer_.data(), target, element_bytes_);
}

void MessageEngine::unpack_received(Side& s, void* target) {
  if (s.path != SidePath::Pack) return;
  const char* buffer = receive_buffer_.data() + s.buffer_offset;
  if (plain_base_) {
    unpack(s.sections, buffer, target, element_bytes_);
  } else {
    int position = 0;
    check_mpi(
        MPI_Unpack(buffer, s.wire_count, &position,
                   static_cast<char*>(target) + s.type.offset_bytes(), 1, s.type.type(), comm_),
        "MPI_Unpack");
  }
}

bool MessageEngine::receive_some(void* target, bool block) {
  const int n = static_cast<int>(receive_requests_.size());
  int done = 0;
  check_mpi(block ? MPI_Waitsome(n, receive_requests_.data(), &done, completed_.data(),
                                 MPI_STATUSES_IGNORE)
                  : MPI_Testsome(n, receive_requests_.data(), &done, completed_.data(),
                                 MPI_STATUSES_IGNORE),
            block ? "MPI_Waitsome" : "MPI_Testsome");
  if (done == MPI_UNDEFINED) {
    mpi_left_ = 0;
    return false;
  }
  mpi_left_ -= done;
  for (int i = 0; i < done; ++i)
    unpack_received(receives_[static_cast<std::size_t>(completed_[static_cast<std::size_t>(i)])],
                    target);
  return done > 0;
}

bool MessageEngine::move_chunks(const void* source, void* target) {
  bool progress = false;
  // Each side's next chunks while `can_move` lets them; a side done for this execute leaves
  // shared_left_ once.
  const auto drain = [&](Side& s, auto can_move, auto move) {
    if (s.path != SidePath::Shared || s.finished) return;
    const int chunks = static_cast<int>(s.chunks.size());
    for (int& i = s.next_chunk; i < chunks && can_move(s.shared, i); ++i, progress = true)
      move(s, i);
    s.finished = s.next_chunk == chunks;
    shared_left_ -= s.finished ? 1 : 0;
  };
  for (Side& s : sends_)
    drain(
        s, [&](int k, int i) { return exchange_->can_produce(k, i); },
        [&](Side& side, int i) {
          pack(side.chunks[static_cast<std::size_t>(i)], source,
               exchange_->send_slot(side.shared, i), element_bytes_);
          exchange_->produced(side.shared, i);
        });
  for (Side& s : receives_)
    drain(
        s, [&](int k, int i) { return exchange_->ready(k, i); },
        [&](Side& side, int i) {
          unpack(side.chunks[static_cast<std::size_t>(i)], exchange_->receive_slot(side.shared, i),
                 target, element_bytes_);
          exchange_->consumed(side.shared, i);
        });
  return progress;
}

void MessageEngine::move_shared(const void* source, void* target) {
  // Chunks go as the rings allow, MPI's receives as they come; the rank's own copy fills the
  // first moment nothing else can go on. With only shared messages left and no progress, the
  // rank sleeps on its doorbell (node_exchange.hpp) instead of polling MPI.
  bool local_done = false;
  while (shared_left_ > 0) {
    const std::uint32_t seen = exchange_->doorbell();
    bool progress = move_chunks(source, target);
    if (mpi_left_ > 0) progress = receive_some(target, false) || progress;
    if (progress || shared_left_ == 0) continue;
    if (!local_done) {
      copy_local(source, target);
      local_done = true;
      continue;
    }
    exchange_->flush();
    if (mpi_sending_) {
      int done = 0;
      check_mpi(MPI_Testall(static_cast<int>(send_requests_.size()), send_requests_.data(), &done,
                            MPI_STATUSES_IGNORE),
                "MPI_Testall");
      mpi_sending_ = done == 0;
    }
    if (mpi_left_ > 0 || mpi_sending_)
      std::this_thread::yield();  // MPI has work too: poll it, but give way on a shared core
    else
      exchange_->wait(seen);
  }
  if (!local_done) copy_local(source, target);
}

void MessageEngine::execute(const void* source, void* target) {
  const bool sends = !sends_.empty() || has_local_, receives = !receives_.empty() || has_local_;
  if ((sends && source == nullptr) || (receives && target == nullptr))
    throw Error(fmt::format("rank {} {} but was given no {} array; pass its local array", rank_,
                            sends && source == nullptr ? "holds source data" : "receives data",
                            sends && source == nullptr ? "source" : "target"));
  mpi_left_ = mpi_receives_;
  mpi_sending_ = mpi_sends_ > 0;
  shared_left_ = 0;
  if (exchange_) {
    exchange_->begin_execute();
    for (auto* list : {&sends_, &receives_})
      for (Side& s : *list)
        if (s.path == SidePath::Shared) s.next_chunk = 0, s.finished = false, ++shared_left_;
  }
  post_receives(target);
  send_all(source);
  if (shared_left_ > 0)
    move_shared(source, target);
  else
    copy_local(source, target);
  while (mpi_left_ > 0) receive_some(target, true);
  if (mpi_sending_)
    check_mpi(MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(),
                          MPI_STATUSES_IGNORE),
              "MPI_Waitall");
}

}  // namespace choreo::redist
