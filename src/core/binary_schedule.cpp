// The .cbs writer and the mapped reader with its structural check (binary_schedule.hpp;
// docs/formats.md has the layout).
#include "choreo/core/binary_schedule.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/core/limits.hpp"
#include "text.hpp"

#ifndef CHOREO_VERSION
#define CHOREO_VERSION "unknown"
#endif

namespace choreo {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the .cbs format is little-endian and read in place: port the reader first");

constexpr std::uint64_t kAlign = 64;
constexpr std::uint64_t kFixedHeader = 128;
constexpr std::uint32_t kEndianMark = 0x01020304;
constexpr std::uint32_t kMaxWriterBytes = 256;
constexpr std::uint32_t kMaxAlgorithmBytes = 4096;
constexpr const char* kFix = "write it again with `choreo convert` or `choreo generate`";

// Byte offsets of the fixed header's fields.
enum Field : std::size_t {
  kMagicAt = 0,
  kEndianAt = 8,
  kMajorAt = 12,
  kMinorAt = 14,
  kFileBytesAt = 16,
  kHeaderBytesAt = 24,
  kRanksAt = 28,
  kOpsAt = 32,
  kOnStartAt = 40,
  kOnCompleteAt = 48,
  kOnAnyAt = 56,
  kCpusAt = 64,
  kNicsAt = 68,
  kWriterBytesAt = 72,
  kAlgorithmBytesAt = 76,
  kFlagsAt = 80,
  kReservedAt = 84,
};

/// The arrays in file order.
enum ArrayId : std::size_t {
  kFirstOp,
  kKind,
  kCpu,
  kNic,
  kPeer,
  kTag,
  kAmount,
  kDependencyCount,
  kOnStartOffset,
  kOnStart,
  kOnCompleteOffset,
  kOnComplete,
  kOnAnyOffset,
  kOnAny,
  kArrays
};
constexpr std::array<const char*, kArrays> kArrayNames = {"first_op",
                                                          "kind",
                                                          "cpu",
                                                          "nic",
                                                          "peer",
                                                          "tag",
                                                          "amount",
                                                          "dependency_count",
                                                          "on_start_offset",
                                                          "on_start",
                                                          "on_complete_offset",
                                                          "on_complete",
                                                          "on_any_offset",
                                                          "on_any"};
constexpr std::array<std::uint64_t, kArrays> kElementBytes = {4, 1, 1, 1, 4, 4, 8,
                                                              4, 4, 4, 4, 4, 4, 4};

std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw Error("binary schedule: size overflows 64 bits");
  return r;
}
std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw Error("binary schedule: size overflows 64 bits");
  return r;
}
std::uint64_t round_up(std::uint64_t n) { return add(n, kAlign - 1) / kAlign * kAlign; }

/// Where each array lies, from the header's counts.
struct Layout {
  std::array<std::uint64_t, kArrays> count{}, offset{};
  std::uint64_t header_bytes = 0, file_bytes = 0;
};

Layout layout_of(std::uint64_t ranks, std::uint64_t ops, std::uint64_t on_start,
                 std::uint64_t on_complete, std::uint64_t on_any, std::uint64_t strings) {
  Layout l;
  l.count = {add(ranks, 1),
             ops,
             ops,
             ops,
             ops,
             ops,
             ops,
             ops,
             add(ops, 1),
             on_start,
             add(ops, 1),
             on_complete,
             on_any > 0 ? add(ops, 1) : 0,
             on_any};
  l.header_bytes = round_up(add(kFixedHeader, strings));
  std::uint64_t at = l.header_bytes;
  for (std::size_t i = 0; i < kArrays; ++i) {
    l.offset[i] = at;
    at = round_up(add(at, mul(l.count[i], kElementBytes[i])));
  }
  l.file_bytes = at;
  return l;
}

template <typename T>
void put(std::string& out, std::size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof value);
}
template <typename T>
T get(const unsigned char* bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes + at, sizeof value);
  return value;
}

/// The header (fixed part, strings, padding) of `s`.
std::string header_of(const CompactSchedule& s, const std::string& algorithm, const Layout& l,
                      const std::string& writer, std::uint32_t flags) {
  std::string h(l.header_bytes, '\0');
  std::memcpy(h.data(), kBinaryScheduleMagic.data(), kBinaryScheduleMagic.size());
  const auto& a = s.arrays();
  put<std::uint32_t>(h, kEndianAt, kEndianMark);
  put<std::uint16_t>(h, kMajorAt, kBinaryScheduleMajor);
  put<std::uint16_t>(h, kMinorAt, kBinaryScheduleMinor);
  put<std::uint64_t>(h, kFileBytesAt, l.file_bytes);
  put<std::uint32_t>(h, kHeaderBytesAt, static_cast<std::uint32_t>(l.header_bytes));
  put<std::uint32_t>(h, kRanksAt, static_cast<std::uint32_t>(s.ranks()));
  put<std::uint64_t>(h, kOpsAt, s.op_count());
  put<std::uint64_t>(h, kOnStartAt, a.on_start.size());
  put<std::uint64_t>(h, kOnCompleteAt, a.on_complete.size());
  put<std::uint64_t>(h, kOnAnyAt, a.on_any.size());
  put<std::uint32_t>(h, kCpusAt, static_cast<std::uint32_t>(s.cpus()));
  put<std::uint32_t>(h, kNicsAt, static_cast<std::uint32_t>(s.nics()));
  put<std::uint32_t>(h, kFlagsAt, flags);
  put<std::uint32_t>(h, kWriterBytesAt, static_cast<std::uint32_t>(writer.size()));
  put<std::uint32_t>(h, kAlgorithmBytesAt, static_cast<std::uint32_t>(algorithm.size()));
  std::memcpy(h.data() + kFixedHeader, writer.data(), writer.size());
  std::memcpy(h.data() + kFixedHeader + writer.size(), algorithm.data(), algorithm.size());
  return h;
}

/// Streams the file to `sink(const void*, std::size_t)`.
template <typename Sink>
void write_cbs(const CompactSchedule& s, const std::string& algorithm, std::uint32_t flags,
               Sink&& sink) {
  if (algorithm.size() > kMaxAlgorithmBytes)
    throw Error(fmt::format("the algorithm name has {} bytes; a binary schedule keeps at most {}",
                            algorithm.size(), kMaxAlgorithmBytes));
  if (!is_utf8(algorithm)) throw Error("the algorithm name is not UTF-8; give a UTF-8 name");
  if (s.ranks() < 1) throw Error("a binary schedule needs at least 1 rank");
  const std::string writer = std::string("choreo ") + CHOREO_VERSION;
  const auto& a = s.arrays();
  const Layout l =
      layout_of(static_cast<std::uint64_t>(s.ranks()), s.op_count(), a.on_start.size(),
                a.on_complete.size(), a.on_any.size(), writer.size() + algorithm.size());
  const std::string header = header_of(s, algorithm, l, writer, flags);
  sink(header.data(), header.size());
  static constexpr std::array<char, kAlign> kZeros{};
  std::uint64_t at = l.header_bytes;
  const auto array = [&](std::size_t id, const auto& span) {
    if (span.size() != l.count[id])
      throw Error(fmt::format("binary schedule writer: array {} has {} entries, not {}",
                              kArrayNames[id], span.size(), l.count[id]));
    sink(span.data(), span.size_bytes());
    at += span.size_bytes();
    const std::uint64_t pad = round_up(at) - at;
    sink(kZeros.data(), pad);
    at += pad;
  };
  array(kFirstOp, a.first_op);
  array(kKind, a.kind);
  array(kCpu, a.cpu);
  array(kNic, a.nic);
  array(kPeer, a.peer);
  array(kTag, a.tag);
  array(kAmount, a.amount);
  array(kDependencyCount, a.dependency_count);
  array(kOnStartOffset, a.on_start_offset);
  array(kOnStart, a.on_start);
  array(kOnCompleteOffset, a.on_complete_offset);
  array(kOnComplete, a.on_complete);
  array(kOnAnyOffset, a.on_any_offset);
  array(kOnAny, a.on_any);
}

/// The structural check of a whole file in memory (mapped or copied; 64-byte aligned).
class Reader {
 public:
  Reader(const unsigned char* bytes, std::uint64_t size, const std::string& name)
      : b_(bytes), size_(size), name_(name) {}

  CompactSchedule read(std::shared_ptr<const void> owner, BinaryScheduleInfo* info) {
    const Layout l = header();
    CompactSchedule::Arrays a;
    a.first_op = span<OpIndex>(l, kFirstOp);
    a.kind = span<std::uint8_t>(l, kKind);
    a.cpu = span<std::uint8_t>(l, kCpu);
    a.nic = span<std::uint8_t>(l, kNic);
    a.peer = span<std::int32_t>(l, kPeer);
    a.tag = span<std::int32_t>(l, kTag);
    a.amount = span<std::int64_t>(l, kAmount);
    a.dependency_count = span<std::uint32_t>(l, kDependencyCount);
    a.on_start_offset = span<OpIndex>(l, kOnStartOffset);
    a.on_start = span<OpIndex>(l, kOnStart);
    a.on_complete_offset = span<OpIndex>(l, kOnCompleteOffset);
    a.on_complete = span<OpIndex>(l, kOnComplete);
    a.on_any_offset = span<OpIndex>(l, kOnAnyOffset);
    a.on_any = span<OpIndex>(l, kOnAny);
    check(a);
    if (info != nullptr) *info = info_;
    return CompactSchedule::view(a, cpus_, nics_, std::move(owner));
  }

 private:
  [[noreturn]] [[gnu::cold]] void corrupt(const std::string& what) const {
    throw Error(fmt::format("{}: corrupt: {}; {}", name_, what, kFix));
  }

  Layout header() {
    if (size_ < kBinaryScheduleMagic.size() ||
        std::memcmp(b_, kBinaryScheduleMagic.data(), kBinaryScheduleMagic.size()) != 0)
      throw Error(
          fmt::format("{}: not a choreo binary schedule (it does not start with {}); give a "
                      ".cbs file that choreo wrote, or a .json or .goal schedule",
                      name_, kBinaryScheduleMagic));
    if (size_ < kFixedHeader)
      throw Error(fmt::format("{}: cut short at byte {} (the header needs {} bytes); {}", name_,
                              size_, kFixedHeader, kFix));
    const auto mark = get<std::uint32_t>(b_, kEndianAt);
    if (mark == __builtin_bswap32(kEndianMark))
      throw Error(fmt::format(
          "{}: written big-endian; this choreo reads little-endian .cbs files only: convert it "
          "to .goal or .json on the machine that wrote it",
          name_));
    if (mark != kEndianMark)
      corrupt(fmt::format("byte {}: the endianness mark is {:#010x}, not {:#010x}", +kEndianAt,
                          mark, kEndianMark));
    info_.major = get<std::uint16_t>(b_, kMajorAt);
    info_.minor = get<std::uint16_t>(b_, kMinorAt);
    const auto writer_bytes = get<std::uint32_t>(b_, kWriterBytesAt);
    const auto algorithm_bytes = get<std::uint32_t>(b_, kAlgorithmBytesAt);
    if (writer_bytes <= kMaxWriterBytes && kFixedHeader + writer_bytes <= size_)
      info_.writer.assign(reinterpret_cast<const char*>(b_) + kFixedHeader, writer_bytes);
    if (info_.major == 0 || info_.major > kBinaryScheduleMajor)
      throw Error(fmt::format(
          "{}: binary schedule format version {}.{}{} is not one this choreo reads ({}.x); "
          "read it with the choreo that wrote it or a newer one, or convert it there to .goal",
          name_, info_.major, info_.minor,
          is_printable(info_.writer) ? fmt::format(" (written by {})", info_.writer) : "",
          kBinaryScheduleMajor));
    const auto flags = get<std::uint32_t>(b_, kFlagsAt);
    if ((flags & ~kBinaryValidated) != 0)
      corrupt(fmt::format("byte {}: unknown flags {:#x}", +kFlagsAt, flags));
    info_.validated = (flags & kBinaryValidated) != 0;
    if (info_.minor <= kBinaryScheduleMinor)
      for (std::size_t i = kReservedAt; i < kFixedHeader; ++i)
        if (b_[i] != 0) corrupt(fmt::format("byte {}: a reserved byte is not 0", i));

    const auto ranks = get<std::uint32_t>(b_, kRanksAt);
    const auto ops = get<std::uint64_t>(b_, kOpsAt);
    const auto on_start = get<std::uint64_t>(b_, kOnStartAt);
    const auto on_complete = get<std::uint64_t>(b_, kOnCompleteAt);
    const auto on_any = get<std::uint64_t>(b_, kOnAnyAt);
    const auto cpus = get<std::uint32_t>(b_, kCpusAt);
    const auto nics = get<std::uint32_t>(b_, kNicsAt);
    if (ranks < 1 || ranks > limits::kMaxRanks)
      corrupt(fmt::format("byte {}: {} ranks; choreo takes 1 to 2^24", +kRanksAt, ranks));
    if (ops > static_cast<std::uint64_t>(limits::kMaxOps))
      corrupt(fmt::format("byte {}: {} ops; choreo takes at most 2^32 - 2", +kOpsAt, ops));
    using Count = std::pair<std::size_t, std::uint64_t>;
    for (auto [at, count] :
         {Count{kOnStartAt, on_start}, Count{kOnCompleteAt, on_complete}, Count{kOnAnyAt, on_any}})
      if (count > UINT32_MAX)
        corrupt(fmt::format("byte {}: {} dependencies in one list; at most 2^32 - 1", at, count));
    if (cpus < 1 || cpus > 256 || nics < 1 || nics > 256)
      corrupt(
          fmt::format("byte {}: {} cpus and {} nics; each must be 1 to 256", +kCpusAt, cpus, nics));
    if (writer_bytes > kMaxWriterBytes || algorithm_bytes > kMaxAlgorithmBytes)
      corrupt(fmt::format("byte {}: names of {} and {} bytes; at most {} and {}", +kWriterBytesAt,
                          writer_bytes, algorithm_bytes, kMaxWriterBytes, kMaxAlgorithmBytes));
    cpus_ = static_cast<int>(cpus);
    nics_ = static_cast<int>(nics);
    const Layout l = layout_of(ranks, ops, on_start, on_complete, on_any,
                               std::uint64_t{writer_bytes} + algorithm_bytes);
    const auto header_bytes = get<std::uint32_t>(b_, kHeaderBytesAt);
    if (header_bytes != l.header_bytes)
      corrupt(fmt::format("byte {}: the header says it has {} bytes, its names make {}",
                          +kHeaderBytesAt, header_bytes, l.header_bytes));
    info_.file_bytes = get<std::uint64_t>(b_, kFileBytesAt);
    if (info_.file_bytes != l.file_bytes)
      corrupt(fmt::format("byte {}: the header says the file has {} bytes, its counts make {}",
                          +kFileBytesAt, info_.file_bytes, l.file_bytes));
    if (size_ < l.file_bytes) {
      std::size_t id = 0;
      while (id + 1 < kArrays && l.offset[id + 1] < size_) ++id;
      const bool in_header = size_ < l.header_bytes;
      throw Error(fmt::format(
          "{}: cut short at byte {} ({} needs bytes {} to {}; the file needs {}); {}", name_, size_,
          in_header ? "the header" : fmt::format("array {}", kArrayNames[id]),
          in_header ? 0 : l.offset[id],
          in_header ? l.header_bytes : l.offset[id] + l.count[id] * kElementBytes[id], l.file_bytes,
          kFix));
    }
    if (size_ > l.file_bytes)
      corrupt(fmt::format("{} bytes follow the last array (from byte {})", size_ - l.file_bytes,
                          l.file_bytes));
    const char* text = reinterpret_cast<const char*>(b_) + kFixedHeader;
    info_.writer.assign(text, writer_bytes);
    info_.algorithm.assign(text + writer_bytes, algorithm_bytes);
    if (!is_utf8(info_.writer) || !is_utf8(info_.algorithm))
      corrupt(fmt::format("byte {}: the writer or algorithm name is not UTF-8", kFixedHeader));
    zeros(kFixedHeader + writer_bytes + algorithm_bytes, l.header_bytes, "the header's padding");
    for (std::size_t id = 0; id < kArrays; ++id)
      zeros(l.offset[id] + l.count[id] * kElementBytes[id],
            id + 1 < kArrays ? l.offset[id + 1] : l.file_bytes,
            fmt::format("the padding after array {}", kArrayNames[id]));
    return l;
  }

  static bool is_printable(const std::string& text) {
    for (char c : text)
      if (c < 0x20 || c > 0x7e) return false;
    return !text.empty();
  }

  void zeros(std::uint64_t from, std::uint64_t to, const std::string& what) const {
    for (std::uint64_t i = from; i < to; ++i)
      if (b_[i] != 0) corrupt(fmt::format("byte {}: {} is not 0", i, what));
  }

  template <typename T>
  std::span<const T> span(const Layout& l, std::size_t id) const {
    return {reinterpret_cast<const T*>(b_ + l.offset[id]), static_cast<std::size_t>(l.count[id])};
  }

  /// One pass over the arrays, rank by rank; counts each op's dependencies in a buffer the
  /// size of one rank's ops.
  void check(const CompactSchedule::Arrays& a) {
    const std::size_t ranks = a.first_op.size() - 1, ops = a.kind.size();
    if (a.first_op[0] != 0) corrupt("first_op[0] is not 0");
    for (std::size_t r = 0; r < ranks; ++r)
      if (a.first_op[r + 1] < a.first_op[r] || a.first_op[r + 1] > ops)
        corrupt(fmt::format("first_op[{}] = {} is out of order or beyond the {} ops", r + 1,
                            a.first_op[r + 1], ops));
    if (a.first_op[ranks] != ops)
      corrupt(fmt::format("first_op[{}] = {}, not the {} ops", ranks, a.first_op[ranks], ops));
    const auto ends = [&](std::span<const OpIndex> offsets, std::span<const OpIndex> list,
                          const char* name) {
      if (offsets.empty()) return;
      if (offsets[0] != 0) corrupt(fmt::format("{}[0] is not 0", name));
      if (offsets[ops] != list.size())
        corrupt(fmt::format("{}[{}] = {}, not the list's {} entries", name, ops, offsets[ops],
                            list.size()));
    };
    ends(a.on_start_offset, a.on_start, "on_start_offset");
    ends(a.on_complete_offset, a.on_complete, "on_complete_offset");
    ends(a.on_any_offset, a.on_any, "on_any_offset");

    int max_cpu = 0, max_nic = 0;
    std::vector<std::uint64_t> counts;
    std::vector<std::uint8_t> grouped;
    const std::int64_t rank_count = static_cast<std::int64_t>(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
      const OpIndex base = a.first_op[r], end = a.first_op[r + 1];
      counts.assign(end - base, 0);
      if (!a.on_any.empty()) grouped.assign(end - base, 0);
      for (OpIndex i = base; i < end; ++i) {
        const auto where = [&] {
          return fmt::format("rank {}, op {} ({})", r, i - base,
                             a.kind[i] <= 4 ? to_string(static_cast<OpKind>(a.kind[i])) : "?");
        };
        const std::uint8_t kind = a.kind[i];
        if (kind > static_cast<std::uint8_t>(OpKind::Copy))
          corrupt(fmt::format("{}: kind {} is not an op (0 send, 1 recv, 2 delay, 3 calc, 4 copy)",
                              where(), kind));
        if (a.cpu[i] >= cpus_ || a.nic[i] >= nics_)
          corrupt(fmt::format("{}: cpu {} / nic {} beyond the header's {} cpus, {} nics", where(),
                              a.cpu[i], a.nic[i], cpus_, nics_));
        max_cpu = std::max<int>(max_cpu, a.cpu[i]);
        max_nic = std::max<int>(max_nic, a.nic[i]);
        const auto k = static_cast<OpKind>(kind);
        const std::int64_t peer = a.peer[i], tag = a.tag[i], amount = a.amount[i];
        if (k == OpKind::Send || k == OpKind::Recv) {
          const int lowest = k == OpKind::Recv ? kAny : 0;
          if (peer < lowest || peer >= rank_count)
            corrupt(fmt::format("{}: peer {} is out of range for a {}-rank schedule", where(), peer,
                                ranks));
          if (tag < lowest) corrupt(fmt::format("{}: tag {} is invalid", where(), tag));
        } else if (peer != 0 || tag != 0 || a.nic[i] != 0) {
          corrupt(fmt::format("{}: peer {}, tag {}, nic {}; an op that is not a message has 0",
                              where(), peer, tag, a.nic[i]));
        }
        const bool timed = k == OpKind::Calc || k == OpKind::Delay;
        if (amount < 0 || amount > (timed ? limits::kMaxNanoseconds : limits::kMaxBytes))
          corrupt(fmt::format("{}: {} {} is out of range: choreo takes 0 to {}", where(),
                              timed ? "time" : "size", amount, timed ? "10^15 ns" : "2^50 bytes"));
        const auto targets = [&](std::span<const OpIndex> offsets, std::span<const OpIndex> list,
                                 const char* name, auto&& count) {
          if (offsets.empty()) return;
          const OpIndex from = offsets[i], to = offsets[i + 1];
          if (to < from || to > list.size())
            corrupt(fmt::format("{}: {}[{}] = {} is out of order or beyond the list's {} entries",
                                where(), name, i + 1, to, list.size()));
          for (OpIndex j = from; j < to; ++j) {
            const OpIndex t = list[j];
            if (t < base || t >= end || t == i)
              corrupt(fmt::format(
                  "{}: op {} depends on it, but {} (a dependency names an op of its own rank, "
                  "not itself)",
                  where(), t, t == i ? "that is itself" : "is not of rank " + std::to_string(r)));
            count(t - base);
          }
        };
        targets(a.on_start_offset, a.on_start, "on_start_offset", [&](OpIndex t) { ++counts[t]; });
        targets(a.on_complete_offset, a.on_complete, "on_complete_offset",
                [&](OpIndex t) { ++counts[t]; });
        targets(a.on_any_offset, a.on_any, "on_any_offset", [&](OpIndex t) { grouped[t] = 1; });
      }
      for (OpIndex i = base; i < end; ++i) {
        const std::uint64_t expected = counts[i - base] + (grouped.empty() ? 0 : grouped[i - base]);
        if (a.dependency_count[i] != expected)
          corrupt(fmt::format("rank {}, op {}: dependency_count {}, but the lists give it {}", r,
                              i - base, a.dependency_count[i], expected));
      }
    }
    if (max_cpu + 1 != cpus_ || max_nic + 1 != nics_)
      corrupt(fmt::format("byte {}: the header says {} cpus and {} nics; the ops use {} and {}",
                          +kCpusAt, cpus_, nics_, max_cpu + 1, max_nic + 1));
  }

  const unsigned char* b_;
  std::uint64_t size_;
  const std::string& name_;
  BinaryScheduleInfo info_;
  int cpus_ = 1, nics_ = 1;
};

/// A read-only mapping of a whole file.
struct Mapping {
  void* address = MAP_FAILED;
  std::size_t bytes = 0;
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (address != MAP_FAILED) munmap(address, bytes);
  }
};

/// Closes a file descriptor when it goes out of scope.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

bool is_binary_schedule(const std::filesystem::path& path) { return path.extension() == ".cbs"; }

std::string encode_binary(const CompactSchedule& schedule, const std::string& algorithm,
                          bool validated) {
  std::string out;
  write_cbs(schedule, algorithm, validated ? kBinaryValidated : 0,
            [&](const void* data, std::size_t bytes) {
              out.append(static_cast<const char*>(data), bytes);
            });
  return out;
}

void save_binary(const CompactSchedule& schedule, const std::string& algorithm,
                 const std::filesystem::path& path, bool validated) {
  // Written to a temporary file beside `path` and renamed over it: a reader that maps the old
  // file (even the same path, `choreo convert x.cbs -o x.cbs`) keeps it whole, and a failed
  // write leaves no half file.
  std::filesystem::path temporary = path;
  temporary += fmt::format(".{}.tmp", getpid());
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(temporary.c_str(), "wb"),
                                                       &std::fclose);
  if (!file)
    throw Error(fmt::format("cannot write {}: check that its folder exists", path.string()));
  std::setvbuf(file.get(), nullptr, _IOFBF, std::size_t{1} << 20);
  const auto discard = [&] {
    std::error_code ignored;
    if (file) std::fclose(file.release());
    std::filesystem::remove(temporary, ignored);
  };
  const auto failed = [&] {
    return Error(fmt::format("writing {} failed (disk full?)", path.string()));
  };
  try {
    write_cbs(schedule, algorithm, validated ? kBinaryValidated : 0,
              [&](const void* data, std::size_t bytes) {
                if (bytes > 0 && std::fwrite(data, 1, bytes, file.get()) != bytes) throw failed();
              });
  } catch (...) {
    discard();
    throw;
  }
  if (std::fclose(file.release()) != 0) {
    discard();
    throw failed();
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    discard();
    throw Error(fmt::format("cannot write {}: {}", path.string(), error.message()));
  }
}

CompactSchedule decode_binary(std::string_view bytes, const std::string& name,
                              BinaryScheduleInfo* info) {
  const std::size_t allocated = std::max<std::size_t>(round_up(bytes.size()), kAlign);
  std::shared_ptr<unsigned char> storage(
      static_cast<unsigned char*>(std::aligned_alloc(kAlign, allocated)), &std::free);
  if (!storage) throw std::bad_alloc();
  std::memcpy(storage.get(), bytes.data(), bytes.size());
  Reader reader(storage.get(), bytes.size(), name);
  return reader.read(storage, info);
}

CompactSchedule load_binary(const std::filesystem::path& path, BinaryScheduleInfo* info) {
  namespace fs = std::filesystem;
  const std::string name = path.string();
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!error && fs::is_fifo(status)) return decode_binary(read_text_file(path), name, info);
  if (error || !fs::exists(status))
    throw Error(fmt::format("cannot read {}: no such file or no permission", name));
  if (!fs::is_regular_file(status))
    throw Error(fmt::format("cannot read {}: it is a directory or device, not a file", name));
  FileDescriptor file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st {};
  if (file.fd < 0 || fstat(file.fd, &st) != 0)
    throw Error(fmt::format("cannot read {}: no such file or no permission", name));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < kFixedHeader) return decode_binary(read_text_file(path), name, info);
  auto mapping = std::make_shared<Mapping>();
  mapping->address = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (mapping->address == MAP_FAILED)
    throw Error(
        fmt::format("cannot map {} ({} bytes) into memory: {}", name, size, std::strerror(errno)));
  mapping->bytes = size;
  Reader reader(static_cast<const unsigned char*>(mapping->address), size, name);
  return reader.read(mapping, info);
}

}  // namespace choreo
