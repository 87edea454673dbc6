#include "choreo/sim/schedule_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "../core/goal_read.hpp"
#include "../core/in_file.hpp"
#include "../core/validate_detail.hpp"
#include "choreo/core/binary_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/goal_io.hpp"
#include "choreo/core/io.hpp"

namespace choreo::sim {
namespace {

/// Thrown by GoalCompactSink when a rank block comes after a higher rank's: the compact form is
/// built in rank order, so such a file is read again through a Schedule.
struct BlocksOutOfOrder {};

class GoalCompactSink final : public detail::GoalSink {
 public:
  /// The expected counts size the compact arrays once (growing them by doubling touched
  /// twice the memory and copied it).
  explicit GoalCompactSink(std::size_t expected_ops = 0, std::size_t expected_dependencies = 0)
      : expected_ops_(expected_ops), expected_dependencies_(expected_dependencies) {}

  void num_ranks(int ranks) override {
    if (ranks < 1)
      throw Error(fmt::format("the schedule has {} ranks; it needs at least 1", ranks));
    builder_.emplace(ranks, expected_ops_, expected_dependencies_);
    ranks_ = ranks;
  }
  void algorithm(std::string name) override { algorithm_ = std::move(name); }

  void block(detail::GoalBlock& block) override {
    if (block.rank < next_rank_) throw BlocksOutOfOrder{};
    while (next_rank_ <= block.rank) builder_->begin_rank(next_rank_++);
    auto& ops = block.ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      Op& op = ops[i];
      op.id = static_cast<std::int64_t>(i);  // the compact form's ids are positions
      detail::check_op_fields(ranks_, block.rank, op);
      add(op);
    }
    // compact() adds an op's requires, then its irequires, then its first-of group, each in
    // list order: the same order here gives the same dependency lists, which the simulator's
    // release order follows.
    auto& dependencies = block.dependencies;
    std::stable_sort(dependencies.begin(), dependencies.end(), [](const auto& a, const auto& b) {
      return a.dependent != b.dependent ? a.dependent < b.dependent : a.kind < b.kind;
    });
    using Kind = detail::GoalDependency::Kind;
    for (const detail::GoalDependency& d : dependencies) {
      if (d.dependent == d.target) fail_self(block.rank, ops[d.dependent], d.kind == Kind::Any);
      switch (d.kind) {
        case Kind::Completed:
          builder_->requires_completed(d.dependent, d.target);
          break;
        case Kind::Started:
          builder_->requires_started(d.dependent, d.target);
          break;
        case Kind::Any:
          builder_->requires_any(d.dependent, d.target);
          break;
      }
    }
  }

  LoadedSchedule finish() {
    while (next_rank_ < ranks_) builder_->begin_rank(next_rank_++);
    return {builder_->finish(), std::move(algorithm_)};
  }

 private:
  void add(const Op& op) {
    switch (op.kind) {
      case OpKind::Send:
        builder_->send(op.peer, op.bytes, op.tag, op.cpu, op.nic);
        break;
      case OpKind::Recv:
        builder_->recv(op.peer, op.bytes, op.tag, op.cpu, op.nic);
        break;
      case OpKind::Calc:
        builder_->calc(op.nanoseconds, op.cpu);
        break;
      case OpKind::Delay:
        builder_->delay(op.nanoseconds, op.cpu);
        break;
      case OpKind::Copy:
        builder_->copy(op.bytes, op.cpu);
        break;
    }
  }

  // The compact form cannot hold an op waiting for itself; the message is validate's.
  [[noreturn]] static void fail_self(int rank, const Op& op, bool in_group) {
    const auto where = fmt::format("rank {}, op {} ({})", rank, op.id, describe(op));
    if (in_group)
      throw Error(
          fmt::format("{}: lists itself (op {}) in its requires_any group; an op cannot "
                      "wait for itself, drop the id",
                      where, op.id));
    throw Error(
        fmt::format("{}: dependency cycle: op {} waits for op {}; remove one of these "
                    "dependencies",
                    where, op.id, op.id));
  }

  std::size_t expected_ops_, expected_dependencies_;
  std::optional<CompactBuilder> builder_;
  int ranks_ = 0;
  int next_rank_ = 0;
  std::string algorithm_;
};

/// A read-only private mapping of a whole regular file, unmapped when destroyed.
class MappedGoalFile {
 public:
  /// nullopt when the file cannot be mapped (not a regular file, or empty).
  static std::optional<MappedGoalFile> open(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat info {};
    std::optional<MappedGoalFile> mapped;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0 &&
        static_cast<std::uintmax_t>(info.st_size) <= kMaxFileBytes) {
      const auto size = static_cast<std::size_t>(info.st_size);
      void* base = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (base != MAP_FAILED) {
        madvise(base, size, MADV_SEQUENTIAL);  // read-ahead; pages behind are dropped below
        mapped.emplace(static_cast<const char*>(base), size);
      }
    }
    ::close(fd);
    return mapped;
  }

  MappedGoalFile(const char* base, std::size_t size) : base_(base), size_(size) {}
  MappedGoalFile(MappedGoalFile&& other) noexcept
      : base_(std::exchange(other.base_, nullptr)), size_(other.size_) {}
  MappedGoalFile(const MappedGoalFile&) = delete;
  MappedGoalFile& operator=(const MappedGoalFile&) = delete;
  MappedGoalFile& operator=(MappedGoalFile&&) = delete;
  ~MappedGoalFile() {
    if (base_ != nullptr) munmap(const_cast<char*>(base_), size_);
  }

  std::string_view text() const { return {base_, size_}; }

  /// Upper bounds of the ops and dependencies of the GOAL text, from one pass that releases
  /// its pages behind it: every labelled op has a ':', every dependency a line of its own.
  std::pair<std::size_t, std::size_t> estimate_ops_and_dependencies() {
    constexpr std::size_t kChunk = std::size_t{8} << 20;
    std::size_t colons = 0, lines = 0;
    for (std::size_t at = 0; at < size_; at += kChunk) {
      const std::string_view chunk = text().substr(at, kChunk);
      colons += static_cast<std::size_t>(std::count(chunk.begin(), chunk.end(), ':'));
      lines += static_cast<std::size_t>(std::count(chunk.begin(), chunk.end(), '\n'));
      release_before(at + chunk.size());
    }
    released_ = 0;  // the parse reads it all again
    // A bound, not a count (comments may hold ':'): reserved memory that is never touched
    // costs address space only, but no more than the machine could ever fill.
    const auto cap = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) *
                     static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) / 64;
    return {std::min(colons, cap), std::min(lines > colons ? lines - colons : 0, cap)};
  }

  /// Gives back the pages wholly before `offset`: they are still in the page cache (and
  /// fault in again if read), but no longer count in this process's memory.
  void release_before(std::size_t offset) {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t end = offset / page * page;
    if (end <= released_) return;
    madvise(const_cast<char*>(base_) + released_, end - released_, MADV_DONTNEED);
    released_ = end;
  }

 private:
  const char* base_;
  std::size_t size_;
  std::size_t released_ = 0;
};

LoadedSchedule from_schedule(Schedule schedule) {
  LoadedSchedule out{compact(schedule), std::move(schedule.algorithm)};
  return out;
}

/// GOAL text into `sink`; a file whose blocks are out of rank order is read again through a
/// Schedule (the compact form is built in rank order).
LoadedSchedule read_into(GoalCompactSink& sink, std::string_view text,
                         const std::function<void(std::size_t)>& consumed = {}) {
  try {
    detail::read_goal(text, sink, consumed);
    return sink.finish();
  } catch (const BlocksOutOfOrder&) {
    return from_schedule(schedule_from_goal(std::string(text)));
  }
}

}  // namespace

LoadedSchedule compact_from_goal(std::string_view text) {
  GoalCompactSink sink;
  return read_into(sink, text);
}

LoadedSchedule load_compact(const std::filesystem::path& path) {
  if (is_binary_schedule(path)) {  // mapped, used in place
    BinaryScheduleInfo info;
    CompactSchedule schedule = load_binary(path, &info);
    return {std::move(schedule), std::move(info.algorithm)};
  }
  if (path.extension() != ".goal") return from_schedule(load_schedule(path));
  std::optional<MappedGoalFile> mapped = MappedGoalFile::open(path);
  if (!mapped) {  // a pipe, an empty file, or an error that read_text_file names
    const std::string text = read_text_file(path);
    return detail::in_file(path, [&] { return compact_from_goal(text); });
  }
  return detail::in_file(path, [&] {
    const auto [ops, dependencies] = mapped->estimate_ops_and_dependencies();
    GoalCompactSink sink(ops, dependencies);
    return read_into(sink, mapped->text(),
                     [&](std::size_t offset) { mapped->release_before(offset); });
  });
}

}  // namespace choreo::sim
