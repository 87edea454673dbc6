// The .ctr encoder and decoder (include/choreo/replay/trace_format.hpp; docs/formats.md has the
// layout).
#include "choreo/replay/trace_format.hpp"

#include <fmt/format.h>

#include <array>

#include "choreo/core/error.hpp"

namespace choreo::trace {
namespace {

void put_unsigned(std::uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

/// Zigzag: small negative numbers (kAnySource, kProcNull) stay one byte.
void put_signed(std::int64_t value, std::string& out) {
  put_unsigned((static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63),
               out);
}

void put_string(std::string_view text, std::string& out) {
  put_unsigned(text.size(), out);
  out.append(text);
}

void put_status(const Status& status, std::string& out) {
  put_signed(status.source, out);
  put_signed(status.tag, out);
  put_unsigned(static_cast<std::uint64_t>(status.bytes), out);
}

/// The common fields of a message: communicator, peer, tag, bytes.
void put_message(const Event& e, std::string& out) {
  put_unsigned(e.comm, out);
  put_signed(e.peer, out);
  put_signed(e.tag, out);
  put_unsigned(static_cast<std::uint64_t>(e.bytes), out);
}

constexpr std::array<std::string_view, 13> kKindNames = {
    "?",        "Send",  "Recv",     "Isend",      "Irecv",      "Sendrecv",   "SendInit",
    "RecvInit", "Start", "Complete", "Collective", "CommCreate", "RequestFree"};

std::string_view kind_name(Kind kind) {
  const auto index = static_cast<std::size_t>(kind);
  return index < kKindNames.size() ? kKindNames[index] : "End";
}

/// Reads the bytes of one file, saying where it stopped making sense.
class TraceReader {
 public:
  TraceReader(std::string_view bytes, const std::string& name) : bytes_(bytes), name_(name) {}

  bool at_end() const { return position_ == bytes_.size(); }
  std::size_t position() const { return position_; }
  void set_context(std::string context) { context_ = std::move(context); }

  std::uint64_t get_unsigned() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const auto byte = static_cast<std::uint8_t>(get_byte());
      value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    corrupt("a number longer than 64 bits");
  }
  std::int64_t get_signed() {
    const std::uint64_t raw = get_unsigned();
    return static_cast<std::int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
  }
  int get_int() {
    const std::int64_t value = get_signed();
    if (value < INT32_MIN || value > INT32_MAX)
      corrupt(fmt::format("{} is not a rank or tag", value));
    return static_cast<int>(value);
  }
  std::uint32_t get_u32() {
    const std::uint64_t value = get_unsigned();
    if (value > UINT32_MAX) corrupt(fmt::format("{} is not a communicator id", value));
    return static_cast<std::uint32_t>(value);
  }
  std::int64_t get_bytes() {
    const std::uint64_t value = get_unsigned();
    if (value > static_cast<std::uint64_t>(INT64_MAX)) corrupt("a byte count beyond 2^63");
    return static_cast<std::int64_t>(value);
  }
  /// A count of items that follow, each at least one byte: more than the bytes left is corrupt
  /// (and would otherwise reserve absurd memory).
  std::size_t get_count() {
    const std::uint64_t count = get_unsigned();
    if (count > bytes_.size() - position_) cut_short();
    return static_cast<std::size_t>(count);
  }
  std::string get_string() {
    const std::size_t length = get_count();
    std::string text(bytes_.substr(position_, length));
    position_ += length;
    return text;
  }
  Status get_status() {
    Status status;
    status.source = get_int();
    status.tag = get_int();
    status.bytes = get_bytes();
    return status;
  }
  void get_message(Event& e) {
    e.comm = get_u32();
    e.peer = get_int();
    e.tag = get_int();
    e.bytes = get_bytes();
  }
  char get_byte() {
    if (position_ == bytes_.size()) cut_short();
    return bytes_[position_++];
  }
  /// The file ends before what it says follows (a list longer than the bytes left is the
  /// same: that is what a cut inside the list looks like).
  [[noreturn]] void cut_short() const {
    throw Error(fmt::format(
        "{}: cut short at byte {}{}: the trace ends inside a record; the program stopped "
        "before MPI_Finalize, or the file was truncated; record it again",
        name_, position_, context_));
  }
  [[noreturn]] void corrupt(const std::string& what) const {
    throw Error(fmt::format("{}: corrupt at byte {}{}: {}; record it again", name_, position_,
                            context_, what));
  }

 private:
  std::string_view bytes_;
  const std::string& name_;
  std::size_t position_ = 0;
  std::string context_;
};

Header decode_header(TraceReader& in, const std::string& name) {
  for (char expected : kMagic)
    if (in.at_end() || in.get_byte() != expected)
      throw Error(
          fmt::format("{}: not a choreo trace (it does not start with {}); traces are "
                      "the rank-<r>.ctr files CHOREO_RECORD=DIR writes",
                      name, kMagic));
  Header h;
  in.set_context(" (in the header)");
  const std::uint64_t version = in.get_unsigned();
  if (version == 0 || version > kFormatVersion)
    throw Error(
        fmt::format("{}: trace format version {} is newer than this choreo reads ({}); "
                    "import it with the choreo that recorded it, or a newer one",
                    name, version, kFormatVersion));
  h.format_version = static_cast<std::uint32_t>(version);
  h.writer = in.get_string();
  h.rank = in.get_int();
  h.size = in.get_int();
  if (h.size < 1 || h.rank < 0 || h.rank >= h.size)
    in.corrupt(fmt::format("rank {} of {} ranks", h.rank, h.size));
  h.clock = in.get_string();
  h.start_ns = in.get_signed();
  h.mpi_library = in.get_string();
  h.host = in.get_string();
  return h;
}

void decode_body(TraceReader& in, Event& e) {
  switch (e.kind) {
    case Kind::Send:
      in.get_message(e);
      return;
    case Kind::Recv:
      in.get_message(e);
      e.status = in.get_status();
      return;
    case Kind::Isend:
    case Kind::Irecv:
    case Kind::SendInit:
    case Kind::RecvInit:
      in.get_message(e);
      e.request = in.get_unsigned();
      return;
    case Kind::Sendrecv:
      in.get_message(e);
      e.recv_peer = in.get_int();
      e.recv_tag = in.get_int();
      e.recv_bytes = in.get_bytes();
      e.status = in.get_status();
      return;
    case Kind::Start:
      e.requests.resize(in.get_count());
      for (std::uint64_t& request : e.requests) request = in.get_unsigned();
      return;
    case Kind::Complete:
      e.completed.resize(in.get_count());
      for (Completion& c : e.completed) {
        const std::uint64_t word = in.get_unsigned();
        c.request = word >> 1;
        c.has_status = (word & 1) != 0;
        if (c.has_status) c.status = in.get_status();
      }
      return;
    case Kind::Collective: {
      const auto collective = static_cast<std::uint8_t>(in.get_byte());
      if (collective >= kCollectiveCount)
        in.corrupt(fmt::format("unknown collective {}", collective));
      e.collective = static_cast<Collective>(collective);
      e.comm = in.get_u32();
      e.root = in.get_int();
      e.collective_bytes = in.get_bytes();
      e.send_bytes.resize(in.get_count());
      for (std::int64_t& bytes : e.send_bytes) bytes = in.get_bytes();
      return;
    }
    case Kind::CommCreate:
      e.comm = in.get_u32();
      e.new_comm = in.get_u32();
      e.members.resize(in.get_count());
      for (int& member : e.members) member = in.get_int();
      return;
    case Kind::RequestFree:
      e.request = in.get_unsigned();
      return;
    case Kind::End:
      e.records = in.get_unsigned();
      return;
  }
  in.corrupt(fmt::format("unknown record kind {}", static_cast<int>(e.kind)));
}

}  // namespace

std::string_view collective_name(Collective collective) {
  constexpr std::array<std::string_view, kCollectiveCount> kNames = {
      "barrier",  "bcast",     "reduce", "allreduce", "allgather",
      "alltoall", "alltoallv", "gather", "scatter"};
  return kNames[static_cast<std::size_t>(collective)];
}

void Event::clear() {
  requests.clear();
  completed.clear();
  send_bytes.clear();
  members.clear();
  Event empty;
  std::swap(empty.requests, requests);
  std::swap(empty.completed, completed);
  std::swap(empty.send_bytes, send_bytes);
  std::swap(empty.members, members);
  *this = std::move(empty);
}

void encode(const Header& h, std::string& out) {
  out.append(kMagic);
  put_unsigned(h.format_version, out);
  put_string(h.writer, out);
  put_signed(h.rank, out);
  put_signed(h.size, out);
  put_string(h.clock, out);
  put_signed(h.start_ns, out);
  put_string(h.mpi_library, out);
  put_string(h.host, out);
}

void encode(const Event& e, std::string& out) {
  out.push_back(static_cast<char>(e.kind));
  put_unsigned(static_cast<std::uint64_t>(e.gap_ns), out);
  put_unsigned(static_cast<std::uint64_t>(e.duration_ns), out);
  switch (e.kind) {
    case Kind::Send:
      put_message(e, out);
      return;
    case Kind::Recv:
      put_message(e, out);
      put_status(e.status, out);
      return;
    case Kind::Isend:
    case Kind::Irecv:
    case Kind::SendInit:
    case Kind::RecvInit:
      put_message(e, out);
      put_unsigned(e.request, out);
      return;
    case Kind::Sendrecv:
      put_message(e, out);
      put_signed(e.recv_peer, out);
      put_signed(e.recv_tag, out);
      put_unsigned(static_cast<std::uint64_t>(e.recv_bytes), out);
      put_status(e.status, out);
      return;
    case Kind::Start:
      put_unsigned(e.requests.size(), out);
      for (std::uint64_t request : e.requests) put_unsigned(request, out);
      return;
    case Kind::Complete:
      put_unsigned(e.completed.size(), out);
      for (const Completion& c : e.completed) {
        put_unsigned((c.request << 1) | (c.has_status ? 1 : 0), out);
        if (c.has_status) put_status(c.status, out);
      }
      return;
    case Kind::Collective:
      out.push_back(static_cast<char>(e.collective));
      put_unsigned(e.comm, out);
      put_signed(e.root, out);
      put_unsigned(static_cast<std::uint64_t>(e.collective_bytes), out);
      put_unsigned(e.send_bytes.size(), out);
      for (std::int64_t bytes : e.send_bytes) put_unsigned(static_cast<std::uint64_t>(bytes), out);
      return;
    case Kind::CommCreate:
      put_unsigned(e.comm, out);
      put_unsigned(e.new_comm, out);
      put_unsigned(e.members.size(), out);
      for (int member : e.members) put_signed(member, out);
      return;
    case Kind::RequestFree:
      put_unsigned(e.request, out);
      return;
    case Kind::End:
      put_unsigned(e.records, out);
      return;
  }
}

RankTrace decode(std::string_view bytes, const std::string& name) {
  TraceReader in(bytes, name);
  RankTrace trace;
  trace.header = decode_header(in, name);
  for (;;) {
    const std::size_t index = trace.events.size();
    in.set_context(fmt::format(" (record {})", index));
    if (in.at_end())
      throw Error(fmt::format(
          "{}: cut short after {} records: no end record, so the program stopped before "
          "MPI_Finalize or the file was truncated; record it again",
          name, index));
    Event e;
    e.kind = static_cast<Kind>(in.get_byte());
    in.set_context(fmt::format(" (record {}, {})", index, kind_name(e.kind)));
    e.gap_ns = in.get_bytes();
    e.duration_ns = in.get_bytes();
    decode_body(in, e);
    if (e.kind == Kind::End) {
      if (e.records != index)
        in.corrupt(
            fmt::format("the end record counts {} records, the file holds {}", e.records, index));
      if (!in.at_end()) in.corrupt("bytes after the end record");
      trace.final_gap_ns = e.gap_ns;
      return trace;
    }
    trace.events.push_back(std::move(e));
  }
}

std::string file_name(int rank) { return fmt::format("rank-{}.ctr", rank); }

}  // namespace choreo::trace
