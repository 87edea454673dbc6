// The decision table the tuning-file writers and readers share (rules_table.hpp), and the
// decisions checked against it.
#include "rules_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/select/rules_export.hpp"

namespace choreo::detail::rules {
namespace {

const Algorithm& find_algorithm(const Collective& c, const CollectiveDecision& d,
                                const std::string& name, Library library) {
  for (const Algorithm& a : c.algorithms) {
    if (a.name != name) continue;
    if (!has(a, library))
      throw Error(fmt::format("{}: {} has no {} algorithm '{}'; it has {}", label(d),
                              library_name(library), c.name, name, available(c, library)));
    return a;
  }
  throw Error(fmt::format("{}: unknown {} algorithm '{}'; choreo's are {}", label(d), c.name, name,
                          join(c.algorithms, [](const Algorithm& a) { return a.name; })));
}

}  // namespace

const std::vector<Collective>& collectives() {
  static const std::vector<Collective> table = {
      {"allgather",
       0,
       true,
       true,
       {{"ring", 4, "MPIR_Allgather_intra_ring"},
        {"bruck", 2, "MPIR_Allgather_intra_brucks"},
        {"recdbl", 3, "MPIR_Allgather_intra_recursive_doubling"},
        {"neighbor", 5, ""}},
       {"ignore", "basic linear", "bruck", "recursive doubling", "ring", "neighbor exchange",
        "two proc only"},
       {}},
      {"allreduce",
       2,
       false,
       false,
       {{"recdbl", 3, "MPIR_Allreduce_intra_recursive_doubling"},
        {"ring", 4, ""},
        {"rabenseifner", 6, "MPIR_Allreduce_intra_reduce_scatter_allgather"}},
       {"ignore", "basic linear", "nonoverlapping", "recursive doubling", "ring", "segmented ring",
        "rabenseifner"},
       {"is_commutative=no", "is_op_built_in=no", "count<pow2"}},
      {"alltoall",
       3,
       true,
       false,
       {{"pairwise", 2, "MPIR_Alltoall_intra_pairwise"},
        {"bruck", 3, "MPIR_Alltoall_intra_brucks"}},
       {"ignore", "basic linear", "pairwise", "modified bruck", "linear with sync",
        "two proc only"},
       {"is_sendbuf_inplace=yes"}},
      {"bcast",
       7,
       false,
       false,
       {{"binomial", 6, "MPIR_Bcast_intra_binomial"},
        {"scatter_allgather", 8, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"}},
       {"ignore", "basic linear", "chain", "pipeline", "split binary tree", "binary tree",
        "binomial", "knomial", "scatter_allgather", "scatter_allgather_ring"},
       {}},
  };
  return table;
}

std::string collective_names() {
  return join(collectives(), [](const Collective& c) { return std::string(c.name); });
}

const Collective* find_collective(std::string_view name) {
  for (const Collective& c : collectives())
    if (c.name == name) return &c;
  return nullptr;
}

std::string_view library_name(Library library) {
  return library == Library::ompi ? "Open MPI 4.1.4" : "MPICH 4.0.2";
}

bool has(const Algorithm& a, Library library) {
  return library == Library::ompi ? a.ompi != 0 : !a.mpich.empty();
}

std::string available(const Collective& c, Library library) {
  std::vector<const Algorithm*> present;
  for (const Algorithm& a : c.algorithms)
    if (has(a, library)) present.push_back(&a);
  return join(present, [&](const Algorithm* a) {
    return library == Library::ompi ? fmt::format("{} ({})", a->name, a->ompi)
                                    : fmt::format("{} ({})", a->name, a->mpich);
  });
}

std::string label(const CollectiveDecision& d) {
  return fmt::format("decision for {} on {} ranks", d.collective, d.comm_size);
}

std::vector<Checked> check(const std::vector<CollectiveDecision>& decisions, Library library) {
  std::vector<Checked> out;
  for (const CollectiveDecision& d : decisions) {
    const Collective* c = find_collective(d.collective);
    if (c == nullptr)
      throw Error(fmt::format("{}: unknown collective '{}'; choreo exports {}", label(d),
                              d.collective, collective_names()));
    if (d.comm_size < 1 || d.comm_size == std::numeric_limits<int>::max())
      throw Error(fmt::format("{}: comm_size must be 1 to {}", label(d),
                              std::numeric_limits<int>::max() - 1));
    if (d.rules.empty())
      throw Error(fmt::format("{}: no size rules; give at least one from 0 bytes", label(d)));
    Checked checked{&d, c, {}};
    for (std::size_t i = 0; i < d.rules.size(); ++i) {
      const SizeRule& r = d.rules[i];
      if (i == 0 && r.from_bytes != 0)
        throw Error(fmt::format("{}: the first rule must start at 0 bytes, not {}", label(d),
                                r.from_bytes));
      if (i > 0 && r.from_bytes <= d.rules[i - 1].from_bytes)
        throw Error(
            fmt::format("{}: rule {} starts at {} bytes, not above the {} bytes of the "
                        "rule before it; rules must ascend",
                        label(d), i, r.from_bytes, d.rules[i - 1].from_bytes));
      checked.algorithms.push_back(&find_algorithm(*c, d, r.algorithm, library));
    }
    out.push_back(std::move(checked));
  }
  std::ranges::sort(out, [](const Checked& a, const Checked& b) {
    return std::pair(a.collective->ompi_id, a.decision->comm_size) <
           std::pair(b.collective->ompi_id, b.decision->comm_size);
  });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].collective == out[i - 1].collective &&
        out[i].decision->comm_size == out[i - 1].decision->comm_size)
      throw Error(fmt::format("two decisions for {} on {} ranks; give one per communicator size",
                              out[i].collective->name, out[i].decision->comm_size));
  return out;
}

void sort_decisions(std::vector<CollectiveDecision>& decisions) {
  std::ranges::sort(decisions, [](const CollectiveDecision& a, const CollectiveDecision& b) {
    return std::pair(find_collective(a.collective)->ompi_id, a.comm_size) <
           std::pair(find_collective(b.collective)->ompi_id, b.comm_size);
  });
}

}  // namespace choreo::detail::rules

namespace choreo {

std::span<const std::string_view> mpi_collectives() { return detail::rules::kOmpiCollectives; }

std::vector<std::string> exportable_algorithms(std::string_view collective, TuningLibrary library) {
  using namespace detail::rules;
  const Collective* c = find_collective(collective);
  if (c == nullptr)
    throw Error(fmt::format("choreo exports no tuning rules for '{}'; it exports {}", collective,
                            collective_names()));
  const Library l = library == TuningLibrary::OpenMpi ? Library::ompi : Library::mpich;
  std::vector<std::string> out;
  for (const Algorithm& a : c->algorithms)
    if (has(a, l)) out.emplace_back(a.name);
  return out;
}

}  // namespace choreo
