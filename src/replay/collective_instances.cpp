// The recorded collectives, expanded: each by a generator of src/coll on its communicator's
// ranks (alltoallv by the direct exchange of its recorded counts), its messages paired as the
// generator means them and given the imported schedule's tags.
#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "choreo/coll/generators.hpp"
#include "choreo/coll/mpi_defaults.hpp"
#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/pattern.hpp"
#include "choreo/sched/schedulers.hpp"
#include "import_parts.hpp"

namespace choreo::replay {
namespace {

bool rooted(trace::Collective c) {
  using enum trace::Collective;
  return c == Bcast || c == Reduce || c == Gather || c == Scatter;
}

/// The algorithms choreo can expand `collective` by.
std::vector<std::string> algorithms_of(std::string_view collective) {
  if (collective == "alltoallv") return {"direct"};
  std::vector<std::string> found;
  for (const std::string& name : coll::generator_names())
    if (name.starts_with(std::string(collective) + ":"))
      found.push_back(name.substr(collective.size() + 1));
  return found;
}

}  // namespace

void check_algorithms(const ImportOptions& options) {
  for (const auto& [collective, algorithm] : options.algorithms) {
    bool known = false;
    for (int c = 0; c < trace::kCollectiveCount; ++c)
      known = known || trace::collective_name(static_cast<trace::Collective>(c)) == collective;
    if (!known)
      throw Error(
          fmt::format("--algorithm {}={}: {} is not a collective the recorder records; "
                      "use barrier, bcast, reduce, allreduce, allgather, alltoall, "
                      "alltoallv, gather or scatter",
                      collective, algorithm, collective));
    const std::vector<std::string> algorithms = algorithms_of(collective);
    if (std::find(algorithms.begin(), algorithms.end(), algorithm) == algorithms.end())
      throw Error(fmt::format("--algorithm {}={}: choreo has no {} algorithm {}; use one of {}",
                              collective, algorithm, collective, algorithm,
                              fmt::join(algorithms, ", ")));
  }
}

std::string algorithm_for(trace::Collective collective, const ImportOptions& options,
                          std::string_view mpi_library, std::int64_t bytes, int ranks) {
  const std::string name(trace::collective_name(collective));
  if (const auto it = options.algorithms.find(name); it != options.algorithms.end())
    return it->second;
  if (collective == trace::Collective::Alltoallv) return "direct";
  return coll::mpi_default_algorithm(coll::library_of(mpi_library), name, bytes, ranks);
}

namespace detail {
namespace {

/// The schedule of one instance on its communicator's ranks, ops numbered by position.
std::shared_ptr<const Schedule> generate(
    const Instance& instance, int ranks, const std::string& algorithm,
    std::map<std::string, std::shared_ptr<const Schedule>>& cache) {
  if (instance.collective == trace::Collective::Alltoallv) {
    Pattern pattern;
    pattern.ranks = ranks;
    for (int src = 0; src < ranks; ++src) {
      const std::vector<std::int64_t>& row = instance.send_bytes[static_cast<std::size_t>(src)];
      for (std::size_t dst = 0; dst < row.size(); ++dst)
        if (row[dst] > 0 && static_cast<int>(dst) != src)
          pattern.messages.push_back({src, static_cast<int>(dst), row[dst]});
    }
    return std::make_shared<const Schedule>(
        choreo::expand(choreo::compact(schedule_direct(pattern)), "alltoallv:direct"));
  }
  const std::string_view name = trace::collective_name(instance.collective);
  std::string spec = fmt::format("{}:{}:ranks={}", name, algorithm, ranks);
  if (instance.collective != trace::Collective::Barrier)
    spec += fmt::format(":bytes={}", instance.bytes);
  if (rooted(instance.collective)) spec += fmt::format(":root={}", instance.root);
  auto& cached = cache[spec];
  if (!cached)
    cached = std::make_shared<const Schedule>(
        choreo::expand(coll::generate(spec), fmt::format("{}:{}", name, algorithm)));
  return cached;
}

/// Pairs the generated messages (the k-th send from a to b with tag t with the k-th receive at
/// b from a with tag t, in program order) and gives each pair its tag in the import.
std::vector<std::vector<int>> pair_tags(const Schedule& schedule, const std::vector<int>& members,
                                        PairTags& tags) {
  std::vector<std::vector<int>> out(schedule.programs.size());
  std::map<std::tuple<int, int, int>, std::deque<std::size_t>> sends;  // (a, b, t) -> op index
  for (std::size_t a = 0; a < schedule.programs.size(); ++a) {
    const auto& ops = schedule.programs[a].ops;
    out[a].assign(ops.size(), -1);
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].kind == OpKind::Send)
        sends[{static_cast<int>(a), ops[i].peer, ops[i].tag}].push_back(i);
  }
  for (std::size_t b = 0; b < schedule.programs.size(); ++b) {
    const auto& ops = schedule.programs[b].ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].kind != OpKind::Recv) continue;
      auto& queue = sends[{ops[i].peer, static_cast<int>(b), ops[i].tag}];
      if (queue.empty())
        throw Error(
            fmt::format("{}: rank {}'s receive from {} (tag {}) has no send; this is a "
                        "bug in choreo's generator, please report it",
                        schedule.algorithm, b, ops[i].peer, ops[i].tag));
      const int a = ops[i].peer;
      const int tag = tags.next(members[static_cast<std::size_t>(a)], members[b]);
      out[static_cast<std::size_t>(a)][queue.front()] = tag;
      out[b][i] = tag;
      queue.pop_front();
    }
  }
  return out;
}

}  // namespace

void expand_instances(Instances& instances, const Communicators& comms,
                      const ImportOptions& options, std::string_view mpi_library, PairTags& tags) {
  std::map<std::string, std::shared_ptr<const Schedule>> cache;
  for (std::size_t k = 0; k < instances.list.size(); ++k) {
    Instance& instance = instances.list[k];
    const std::vector<int>& members = comms.members(instance.comm);
    if (instance.calls != members.size())
      throw Error(fmt::format(
          "a {} on communicator {} was called by {} of its {} ranks; the others never reached "
          "it in the recording (did the program stop early?)",
          trace::collective_name(instance.collective), instance.comm, instance.calls,
          members.size()));
    const int ranks = static_cast<int>(members.size());
    const std::string algorithm =
        algorithm_for(instance.collective, options, mpi_library, instance.bytes, ranks);
    instance.schedule = generate(instance, ranks, algorithm, cache);
    instance.tags = pair_tags(*instance.schedule, members, tags);
  }
}

}  // namespace detail
}  // namespace choreo::replay
