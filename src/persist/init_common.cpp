#include "init_common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "../mpi/datatype_layout.hpp"
#include "../mpi/timed_runs.hpp"
#include "choreo/core/error.hpp"
#include "instance.hpp"

namespace choreo::persist::detail {

void on_every_rank(MPI_Comm comm, const std::function<void()>& check) {
  mpi::detail::collectively(comm, check);
}

Ranks ranks_of(MPI_Comm comm) {
  Ranks out;
  MPI_Comm_rank(comm, &out.rank);
  MPI_Comm_size(comm, &out.size);
  return out;
}

int contiguous_size(const char* call, MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL)
    throw Error(
        fmt::format("{}: the datatype is MPI_DATATYPE_NULL; pass a datatype such as "
                    "MPI_INT",
                    call));
  int size = 0;
  MPI_Aint lower = 0, extent = 0;
  MPI_Type_size(type, &size);
  MPI_Type_get_extent(type, &lower, &extent);
  if (size <= 0 || !mpi::detail::is_contiguous(type))
    throw Error(
        fmt::format("{}: the datatype is not contiguous (size {}, lower bound {}, extent "
                    "{}); reductions move contiguous bytes: pass a contiguous type",
                    call, size, lower, extent));
  return size;
}

int element_size(const char* call, MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL)
    throw Error(fmt::format(
        "{}: the datatype is MPI_DATATYPE_NULL; pass a datatype such as MPI_INT", call));
  int size = 0, packed = 0;
  MPI_Type_size(type, &size);
  if (size <= 0)
    throw Error(
        fmt::format("{}: the datatype holds no data (size {}); pass a datatype such as "
                    "MPI_INT",
                    call, size));
  if (mpi::detail::is_contiguous(type)) return size;
  MPI_Pack_size(1, type, MPI_COMM_SELF, &packed);
  if (packed != size)
    throw Error(fmt::format(
        "{}: this MPI packs the non-contiguous datatype into {} bytes for its {} bytes of data, "
        "so its packed elements do not sit back to back; pass a contiguous type",
        call, packed, size));
  return size;
}

Layout layout_of(const char* call, MPI_Datatype type, std::int64_t count, bool input, bool output) {
  if (type == MPI_DATATYPE_NULL || mpi::detail::is_contiguous(type)) return {};
  if (count > std::numeric_limits<int>::max())
    throw Error(
        fmt::format("{}: {} elements of a non-contiguous datatype exceed MPI_Pack's int "
                    "count; use a contiguous type",
                    call, count));
  return {type, static_cast<int>(count), input, output};
}

namespace {
const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}
}  // namespace

void check_thread_level(const char* call, const Options& options) {
  if (options.engine != Engine::Thread) return;
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided == MPI_THREAD_MULTIPLE) return;
  if (provided == MPI_THREAD_SERIALIZED && options.allow_serialized) return;
  throw Error(fmt::format(
      "{}: the thread engine calls MPI from its progress thread while your threads may call it "
      "too, which needs MPI_THREAD_MULTIPLE, but MPI provides {}; initialise MPI with "
      "MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...), or with MPI_THREAD_SERIALIZED and "
      "Options::allow_serialized if you make no MPI call while a request is active, or use "
      "the commands engine",
      call, level_name(provided)));
}

void check_commutative_op(const char* call, MPI_Op op, std::string_view algorithm,
                          std::string_view mpi_call) {
  if (op == MPI_OP_NULL) throw Error(fmt::format("{}: op is MPI_OP_NULL; pass e.g. MPI_SUM", call));
  int commutative = 0;
  MPI_Op_commutative(op, &commutative);
  if (!commutative)
    throw Error(
        fmt::format("{}: the op is not commutative, but {} in a rank-dependent order; use {}", call,
                    algorithm, mpi_call));
}

void check_root(const char* call, int root, int ranks) {
  if (root < 0 || root >= ranks)
    throw Error(fmt::format("{}: root {} is not a rank of the communicator (0..{})", call, root,
                            ranks - 1));
}

std::int64_t checked_bytes(const char* call, std::int64_t count, int element_size) {
  if (count < 0) throw Error(fmt::format("{}: count must be 0 or more, not {}", call, count));
  if (element_size > 0 && count > INT64_MAX / element_size)
    throw Error(
        fmt::format("{}: {} elements of {} bytes pass 2^63 bytes", call, count, element_size));
  return count * element_size;
}

void agree_between_ranks(const char* call, MPI_Comm comm, const Fields& fields) {
  // One MPI_MIN over each value and its complement gives both the least and (as ~min(~x) ==
  // max(x), with no overflow) the greatest: one allreduce, not two.
  const std::size_t n = fields.size();
  std::vector<std::int64_t> both(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    both[i] = fields[i].second;
    both[n + i] = ~fields[i].second;
  }
  MPI_Allreduce(MPI_IN_PLACE, both.data(), static_cast<int>(both.size()), MPI_INT64_T, MPI_MIN,
                comm);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t low = both[i], high = ~both[n + i];
    if (low != high)
      throw Error(
          fmt::format("{}: ranks passed different {} ({} on some, {} on others); "
                      "every rank must pass the same",
                      call, fields[i].first, low, high));
  }
}

std::int64_t fingerprint(std::span<const std::byte> bytes) {
  std::uint64_t hash = 1469598103934665603ull;
  for (std::byte b : bytes) {
    hash ^= static_cast<std::uint64_t>(b);
    hash *= 1099511628211ull;
  }
  return static_cast<std::int64_t>(hash >> 1);
}

std::int64_t name_fingerprint(std::string_view name) {
  return fingerprint(std::as_bytes(std::span(name.data(), name.size())));
}

void check_tags(const char* call, const Plan& plan, MPI_Comm comm) {
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &found);
  const int tag_ub = found ? *static_cast<int*>(value) : 32767;
  for (const Command& command : plan.commands)
    if ((command.kind == CommandKind::Send || command.kind == CommandKind::Recv) &&
        command.tag > tag_ub)
      throw Error(
          fmt::format("{}: {} needs tag {} but this MPI's MPI_TAG_UB is {}; use larger "
                      "segments (Options::segment_bytes)",
                      call, plan.algorithm, command.tag, tag_ub));
}

namespace {
/// comm's duplicate (its tags then meet no other traffic) and the library's collective on it;
/// frees the duplicate if making the collective throws.
std::pair<MPI_Comm, std::unique_ptr<LibraryCollective>> duplicate(MPI_Comm comm,
                                                                  const LibraryFactory& make) {
  MPI_Comm own = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &own);
  try {
    return {own, make ? make(own) : nullptr};
  } catch (...) {
    MPI_Comm_free(&own);
    throw;
  }
}
}  // namespace

Request make_request(Plan plan, UserBuffers buffers, MPI_Comm comm, MPI_Datatype type, MPI_Op op,
                     const Options& options, const LibraryFactory& rival) {
  if (options.max_message_bytes < 0)
    throw Error(fmt::format("max_message_bytes must be 0 (MPI's int count) or more, not {}",
                            options.max_message_bytes));
  // Reductions cut at whole elements, each its extent in the buffers (a pair type's padding
  // too), as the driver counts them.
  MPI_Aint lower = 0, extent = 1;
  if (op != MPI_OP_NULL) MPI_Type_get_extent(type, &lower, &extent);
  split_messages(
      plan,
      options.max_message_bytes > 0 ? options.max_message_bytes : std::numeric_limits<int>::max(),
      extent);
  auto [own, library] = duplicate(comm, rival);
  return Request(std::make_unique<Instance>(std::move(plan), buffers, own, type, op, options.engine,
                                            std::move(library)));
}

Request make_library_request(Plan plan, MPI_Comm comm, const LibraryFactory& make) {
  auto [own, library] = duplicate(comm, make);
  return Request(std::make_unique<Instance>(std::move(plan), std::move(library), own));
}

std::string chosen_algorithm(const char* call, const Options& options, std::string fallback,
                             const std::vector<std::string>& known) {
  std::string name = options.algorithm.empty() ? std::move(fallback) : options.algorithm;
  if (std::ranges::find(known, name) == known.end())
    throw Error(
        fmt::format("{}: unknown algorithm '{}'; choose {}", call, name, fmt::join(known, ", ")));
  return name;
}

Way way_of(const char* call, const Options& options, const std::string& fallback,
           const std::string& described) {
  Way way;
  way.algorithm = chosen_algorithm(call, options, fallback, {fallback, "mpi"});
  way.measured = options.algorithm.empty() && options.engine == Engine::Commands;
  way.choice = !options.algorithm.empty()
                   ? "named by the caller"
                   : (way.measured ? "the default: " + described +
                                         ", measured against the MPI library's own over the "
                                         "first starts"
                                   : "the default: " + described +
                                         " (only the commands engine measures the library's own)");
  return way;
}

LibraryFactory library_within_int(std::int64_t bytes, LibraryFactory library) {
  return bytes <= std::numeric_limits<int>::max() ? std::move(library) : LibraryFactory{};
}

Request request_by_way(const char* call, const Way& way, const std::string& collective,
                       const std::function<Plan()>& make_plan, UserBuffers buffers, MPI_Comm comm,
                       MPI_Datatype type, MPI_Op op, const Options& options,
                       const LibraryFactory& library) {
  if (way.algorithm == "mpi" && !library)
    throw Error(
        fmt::format("{}: the MPI library's own {} (\"mpi\") takes an int count, and "
                    "this call's bytes pass INT_MAX; name no algorithm (choreo's)",
                    call, collective));
  if (way.algorithm == "mpi") {
    Plan named;
    named.algorithm = collective + ":mpi";
    named.choice = way.choice;
    return make_library_request(std::move(named), comm, library);
  }
  Plan plan;
  on_every_rank(comm, [&] {
    plan = make_plan();
    plan.choice = way.measured && !library
                      ? named_or(options,
                                 "the default (not measured: the MPI library's own "
                                 "takes an int count, and this call's bytes pass it)")
                      : way.choice;
    check_tags(call, plan, comm);
  });
  // On one rank a plan moves no message, so there is nothing to measure (and MPICH 4.0.2's
  // MPI_Iallgatherv on one rank ignores the displacement).
  const bool measured = way.measured && ranks_of(comm).size > 1;
  return make_request(std::move(plan), buffers, comm, type, op, options,
                      measured ? library : LibraryFactory{});
}

std::string named_or(const Options& options, std::string rule) {
  return options.algorithm.empty() ? std::move(rule) : "named by the caller";
}

}  // namespace choreo::persist::detail
