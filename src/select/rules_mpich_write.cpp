// Decisions -> an MPICH 4.0.2 CSEL file: MPICH's stock tree with choreo's decisions spliced
// in; what CSEL compares is in rules_table.hpp.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/select/rules_export.hpp"
#include "rules_csel.hpp"
#include "rules_table.hpp"

namespace choreo::detail::rules {
namespace {

ordered_json leaf(std::string_view algorithm) {
  ordered_json node = ordered_json::object();
  node[fmt::format("algorithm={}", algorithm)] = ordered_json::object();
  return node;
}

/// The message-size chain of one decision.
ordered_json mpich_size_chain(const Checked& k) {
  const CollectiveDecision& d = *k.decision;
  const std::string_view key = k.collective->mpich_total ? "total_msg_size" : "avg_msg_size";
  const std::int64_t scale = k.collective->mpich_total ? d.comm_size : 1;
  ordered_json chain = ordered_json::object();
  for (std::size_t r = 0; r + 1 < d.rules.size(); ++r) {
    const std::int64_t next = d.rules[r + 1].from_bytes;
    if (next > (kIntMax + 1) / scale)
      throw Error(fmt::format(
          "{}: the rule from {} bytes needs {}<={}{} - 1, above the {} "
          "MPICH 4.0.2 reads (it parses thresholds with atoi)",
          label(d), next, key, next, scale > 1 ? fmt::format(" x {}", scale) : "", kIntMax));
    chain[fmt::format("{}<={}", key, next * scale - 1)] = leaf(k.algorithms[r]->mpich);
  }
  chain[fmt::format("{}=any", key)] = leaf(k.algorithms.back()->mpich);
  return chain;
}

/// One decision: the calls its algorithms cannot take to the stock subtree, then the
/// message-size chain.
ordered_json mpich_decision_branch(const Checked& k, const ordered_json& stock) {
  ordered_json branch = ordered_json::object();
  for (const std::string_view guard : k.collective->mpich_guards)
    branch[std::string(guard)] = stock;
  const ordered_json chain = mpich_size_chain(k);
  for (const auto& [key, value] : chain.items()) branch[key] = value;
  return branch;
}

/// The comm_type=intra subtree of a decided collective: the stock subtree for every
/// communicator size without a decision.
ordered_json mpich_decided_intra(const std::vector<const Checked*>& decided,
                                 const ordered_json& stock) {
  ordered_json intra = ordered_json::object();
  int covered = 0;  // communicator sizes <= covered are taken
  for (const Checked* k : decided) {
    const int size = k->decision->comm_size;
    if (size - 1 > covered) intra[fmt::format("comm_size<={}", size - 1)] = stock;
    intra[fmt::format("comm_size<={}", size)] = mpich_decision_branch(*k, stock);
    covered = size;
  }
  intra["comm_size=any"] = stock;
  return intra;
}

}  // namespace
}  // namespace choreo::detail::rules

namespace choreo {

std::string mpich_csel_json(const std::vector<CollectiveDecision>& decisions) {
  using namespace detail::rules;
  const std::vector<Checked> checked = check(decisions, Library::mpich);
  ordered_json root = mpich_stock_tree();
  for (const Collective& c : collectives()) {
    std::vector<const Checked*> decided;
    for (const Checked& k : checked)
      if (k.collective == &c) decided.push_back(&k);
    if (decided.empty()) continue;
    // Only this subtree changes; every other key keeps its place and its stock value.
    root.at(fmt::format("collective={}", c.name)).at("comm_type=intra") =
        mpich_decided_intra(decided, mpich_stock_intra(c));
  }
  return root.dump(2) + "\n";
}

}  // namespace choreo
