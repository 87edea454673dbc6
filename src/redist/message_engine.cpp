#include "message_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <thread>

#include "choreo/error.hpp"
#include "mpi_check.hpp"

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

SidePath choose_path(Method method, const LayoutShape& shape, std::int64_t bytes, bool plain_base) {
  if (method == Method::Datatype) return SidePath::Datatype;
  if (method == Method::Pack) return SidePath::Pack;
  if (!plain_base) return SidePath::Datatype;
  if (shape.contiguous()) return SidePath::Direct;
  return bytes <= kDatatypeMaxBytes ? SidePath::Datatype : SidePath::Pack;
}

MessageEngine::MessageEngine(MPI_Comm comm, const RankPlan& plan, MPI_Datatype base, Method method,
                             int tag)
    : comm_(comm), rank_(plan.rank), tag_(tag), method_(method), base_(base) {
  build(plan, true);
}

MessageEngine::MessageEngine(const RankPlan& plan, MessageEngine&& previous)
    : comm_(previous.comm_),
      rank_(plan.rank),
      exchange_(std::move(previous.exchange_)),
      tag_(previous.tag_),
      method_(previous.method_),
      base_(previous.base_) {
  build(plan, false);
}

void MessageEngine::build(const RankPlan& plan, bool new_exchange) {
  const double start = MPI_Wtime();
  plain_base_ = is_plain(base_, extent_, element_bytes_);
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
        candidates[k].push_back({s.peer, s.elements * element_bytes_, s.shape.contiguous()});
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
  mpi_receives_ = 0;
  for (std::size_t k = 0; k < receives_.size(); ++k)
    if (receives_[k].path == SidePath::Shared)
      shared_receives_.push_back(k);
    else
      ++mpi_receives_;
  if (exchange_) stats_.buffer_bytes += exchange_->segment_bytes();
  if (has_local_) {
    stats_.copy_bytes = local_out_.elements * element_bytes_;
    // Method::Datatype promises no buffers.
    if (method_ != Method::Datatype &&
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
  s.path = s.shared >= 0 ? SidePath::Shared : choose_path(method_, s.shape, bytes, plain_base_);
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
  // Only the pack loops walk the sections again.
  if (!((s.path == SidePath::Pack && plain_base_) || s.path == SidePath::Shared)) {
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

void MessageEngine::send_all(const void* source, void* target) {
  const char* base = static_cast<const char*>(source);
  for (std::size_t k = 0; k < sends_.size(); ++k) {
    Side& s = sends_[k];
    MPI_Request* r = &send_requests_[k];
    switch (s.path) {
      case SidePath::Shared:
        pack(s.sections, source, exchange_->claim_send_slot(s.shared), element_bytes_);
        exchange_->sent(s.shared);
        // Unpack what has come while this rank packed, while it may still be in cache.
        unpack_arrived(target);
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
  if (s.path == SidePath::Shared) {
    unpack(s.sections, exchange_->receive_slot(s.shared), target, element_bytes_);
    exchange_->consumed(s.shared);
    return;
  }
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

bool MessageEngine::unpack_arrived(void* target) {
  bool any = false;
  for (std::size_t i = 0; i < shared_pending_.size();) {
    Side& s = receives_[shared_pending_[i]];
    if (!exchange_->arrived(s.shared)) {
      ++i;
      continue;
    }
    unpack_received(s, target);
    shared_pending_[i] = shared_pending_.back();
    shared_pending_.pop_back();
    any = true;
  }
  return any;
}

void MessageEngine::finish_receives(void* target) {
  // Shared messages are tested by their flags, MPI's by their requests; with only shared ones
  // left, the rank sleeps on its doorbell (node_exchange.hpp) instead of polling MPI.
  int mpi_left = mpi_receives_;
  const int n = static_cast<int>(receive_requests_.size());
  while (mpi_left > 0 || !shared_pending_.empty()) {
    const std::uint32_t seen = shared_pending_.empty() ? 0 : exchange_->doorbell();
    bool progress = !shared_pending_.empty() && unpack_arrived(target);
    if (mpi_left > 0) {
      const bool wait = shared_pending_.empty();
      int done = 0;
      check_mpi(wait ? MPI_Waitsome(n, receive_requests_.data(), &done, completed_.data(),
                                    MPI_STATUSES_IGNORE)
                     : MPI_Testsome(n, receive_requests_.data(), &done, completed_.data(),
                                    MPI_STATUSES_IGNORE),
                wait ? "MPI_Waitsome" : "MPI_Testsome");
      if (done == MPI_UNDEFINED) done = 0, mpi_left = 0;
      mpi_left -= done;
      for (int i = 0; i < done; ++i)
        unpack_received(
            receives_[static_cast<std::size_t>(completed_[static_cast<std::size_t>(i)])], target);
      progress = progress || done > 0;
    }
    if (progress || shared_pending_.empty()) continue;
    if (mpi_left == 0)
      exchange_->wait(seen);
    else
      std::this_thread::yield();  // both kinds pending: poll, but give way on a shared core
  }
}

void MessageEngine::execute(const void* source, void* target) {
  const bool sends = !sends_.empty() || has_local_, receives = !receives_.empty() || has_local_;
  if ((sends && source == nullptr) || (receives && target == nullptr))
    throw Error(fmt::format("rank {} {} but was given no {} array; pass its local array", rank_,
                            sends && source == nullptr ? "holds source data" : "receives data",
                            sends && source == nullptr ? "source" : "target"));
  if (exchange_) exchange_->begin_execute();
  shared_pending_ = shared_receives_;
  post_receives(target);
  send_all(source, target);
  copy_local(source, target);
  finish_receives(target);
  if (!send_requests_.empty())
    check_mpi(MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(),
                          MPI_STATUSES_IGNORE),
              "MPI_Waitall");
}

}  // namespace choreo::redist
