// An MPICH 4.0.2 CSEL file -> decisions: the comm_type=intra subtrees of the collectives
// choreo decides, every other subtree checked as MPICH would read it (rules_table.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/select/rules_export.hpp"
#include "rules_csel.hpp"
#include "rules_table.hpp"

namespace choreo::detail::rules {
namespace {

/// Checks a subtree choreo does not read: objects only, keys MPICH knows, leaves {}.
void validate_subtree(const ordered_json& node, const std::string& path) {
  if (leaf_algorithm(node, path)) return;
  for (const auto& [key, value] : node.items()) {
    if (!known_csel_key(key))
      throw Error(fmt::format("{}: unknown CSEL key \"{}\" (MPICH 4.0.2 aborts on it)", path, key));
    validate_subtree(value, child(path, key));
  }
}

std::string choreo_algorithm(const Collective& c, const std::string& mpich,
                             const std::string& path) {
  for (const Algorithm& a : c.algorithms)
    if (a.mpich == mpich) return std::string(a.name);
  throw Error(fmt::format("{}: {} is not a {} algorithm choreo has; choreo reads {}", path, mpich,
                          c.name, available(c, Library::mpich)));
}

/// A decision's message-size chain on `ranks` ranks: the keys of `node` from index `first`.
std::vector<SizeRule> parse_size_chain(const Collective& c, int ranks, const ordered_json& node,
                                       const std::string& path, std::size_t first) {
  std::vector<SizeRule> rules;
  std::int64_t from = 0;
  std::size_t index = 0;
  for (const auto& [key, value] : node.items()) {
    if (index < first) {
      ++index;
      continue;
    }
    const std::string here = child(path, key);
    const auto algorithm = leaf_algorithm(value, here);
    if (!algorithm)
      throw Error(
          fmt::format("{}: expected {{\"algorithm=MPIR_...\": {{}}}} under a message "
                      "size key",
                      here));
    rules.push_back(
        {from, choreo_algorithm(c, *algorithm, child(here, "algorithm=" + *algorithm))});
    ++index;
    if (key == "avg_msg_size=any" || key == "total_msg_size=any") {
      if (key == "avg_msg_size=any" && c.mpich_total)
        throw Error(
            fmt::format("{}: MPICH 4.0.2 has no avg_msg_size for {} (it aborts); use "
                        "total_msg_size",
                        here, c.name));
      if (index != node.size())
        throw Error(
            fmt::format("{}: \"{}\" must be the last key; the ones after it are never "
                        "reached (and MPICH aborts)",
                        here, key));
      return rules;
    }
    std::int64_t next = 0;
    if (auto v = bound(key, "avg_msg_size<=", here)) {
      next = *v + 1;
    } else if (auto w = bound(key, "avg_msg_size<", here)) {
      next = *w;
    } else if (auto x = bound(key, "total_msg_size<=", here)) {
      next = *x / ranks + 1;
    } else if (auto y = bound(key, "total_msg_size<", here)) {
      next = ceil_div(*y, ranks);
    } else {
      throw Error(
          fmt::format("{}: choreo reads message-size keys {}_msg_size<=N, <N and =any "
                      "here, not \"{}\"",
                      here, c.mpich_total ? "total" : "avg", key));
    }
    if (key.starts_with("avg_msg_size") && c.mpich_total)
      throw Error(
          fmt::format("{}: MPICH 4.0.2 has no avg_msg_size for {} (it aborts); use "
                      "total_msg_size",
                      here, c.name));
    if (next <= from)
      throw Error(
          fmt::format("{}: this rule is never reached on {} ranks (it ends at or before "
                      "the {} bytes where it would start); sizes must ascend",
                      here, ranks, from));
    from = next;
  }
  throw Error(
      fmt::format("{}: the message-size keys must end with {}_msg_size=any (MPICH "
                  "aborts on a chain without it)",
                  path, c.mpich_total ? "total" : "avg"));
}

bool is_mpich_guard(const Collective& c, std::string_view key) {
  return std::ranges::find(c.mpich_guards, key) != c.mpich_guards.end();
}

/// A single algorithm, or MPICH's stock subtree: what a decided collective's file holds where
/// choreo has no decision.
bool is_mpich_fallback(const Collective& c, const ordered_json& node, const std::string& path) {
  return leaf_algorithm(node, path) || node == mpich_stock_intra(c);
}

/// A comm_size<=N branch: a fallback, or the decision for N (guards, then message sizes).
void parse_comm_branch(const Collective& c, int ranks, const ordered_json& node,
                       const std::string& path, std::vector<CollectiveDecision>& decisions) {
  if (is_mpich_fallback(c, node, path)) return;
  std::size_t guards = 0;
  for (const auto& [key, value] : node.items()) {
    if (!is_mpich_guard(c, key)) break;
    validate_subtree(value, child(path, key));
    ++guards;
  }
  decisions.push_back({std::string(c.name), ranks, parse_size_chain(c, ranks, node, path, guards)});
}

/// The comm_size chain of a decided collective: fallbacks and decisions.
void parse_comm_chain(const Collective& c, const ordered_json& node, const std::string& path,
                      std::size_t first, std::vector<CollectiveDecision>& decisions) {
  std::int64_t previous = 0;
  std::size_t index = 0;
  for (const auto& [key, value] : node.items()) {
    if (index++ < first) continue;
    const std::string here = child(path, key);
    const bool last = index == node.size();
    if (key == "comm_size=any") {
      if (!last)
        throw Error(
            fmt::format("{}: \"comm_size=any\" must be the last key; the ones after it "
                        "are never reached (and MPICH aborts)",
                        here));
      if (is_mpich_fallback(c, value, here)) return;
      if (value.begin().key().starts_with("avg_msg_size") ||
          value.begin().key().starts_with("total_msg_size"))
        throw Error(
            fmt::format("{}: message-size rules under comm_size=any; choreo decisions "
                        "are for one communicator size, write comm_size<=N",
                        here));
      throw Error(
          fmt::format("{}: choreo reads a single algorithm or MPICH 4.0.2's stock {} subtree "
                      "under comm_size=any",
                      here, c.name));
    }
    const auto size = bound(key, "comm_size<=", here);
    if (!size)
      throw Error(fmt::format("{}: choreo reads comm_size<=N and comm_size=any here, not \"{}\"",
                              here, key));
    if (*size <= previous || *size > kIntMax)
      throw Error(
          fmt::format("{}: comm_size<={} is never reached after comm_size<={}; sizes "
                      "must ascend",
                      here, *size, previous));
    previous = *size;
    parse_comm_branch(c, static_cast<int>(*size), value, here, decisions);
  }
  throw Error(
      fmt::format("{}: the comm_size keys must end with comm_size=any (MPICH aborts on "
                  "a chain without it)",
                  path));
}

void parse_intra(const Collective& c, const ordered_json& node, const std::string& path,
                 std::vector<CollectiveDecision>& decisions) {
  if (is_mpich_fallback(c, node, path)) return;
  // Guards in front of the comm_size chain: the shape choreo wrote before it kept MPICH's
  // stock tree (alltoall's chain then sat under is_sendbuf_inplace=no).
  std::size_t guards = 0;
  for (const auto& [key, value] : node.items()) {
    const std::string here = child(path, key);
    if (is_mpich_guard(c, key)) {
      validate_subtree(value, here);
      ++guards;
      continue;
    }
    if (key == "is_sendbuf_inplace=no" && is_mpich_guard(c, "is_sendbuf_inplace=yes")) {
      if (guards + 1 != node.size())
        throw Error(fmt::format("{}: \"is_sendbuf_inplace=no\" must be the last key", here));
      if (!leaf_algorithm(value, here)) parse_comm_chain(c, value, here, 0, decisions);
      return;
    }
    break;
  }
  parse_comm_chain(c, node, path, guards, decisions);
}

}  // namespace
}  // namespace choreo::detail::rules

namespace choreo {

std::vector<CollectiveDecision> parse_mpich_csel_json(std::string_view text) {
  using namespace detail::rules;
  const ordered_json root = parse_without_duplicate_keys(text);
  if (!root.is_object())
    throw Error(fmt::format("$: a CSEL file is a JSON object of \"collective=NAME\" keys, not {}",
                            root.type_name()));
  std::vector<CollectiveDecision> decisions;
  for (const auto& [key, value] : root.items()) {
    const std::string here = child("$", key);
    if (!key.starts_with("collective="))
      throw Error(fmt::format("{}: the top-level keys of a CSEL file are collective=NAME", here));
    const std::string_view name =
        std::string_view(key).substr(std::string_view("collective=").size());
    const Collective* c = find_collective(name);
    if (c == nullptr) {
      if (!mpich_stock_tree().contains(key))
        throw Error(fmt::format("{}: MPICH 4.0.2 has no collective \"{}\"", here, name));
      validate_subtree(value, here);
      continue;
    }
    if (leaf_algorithm(value, here)) continue;
    for (const auto& [sub, node] : value.items()) {
      const std::string there = child(here, sub);
      if (sub == "comm_type=intra")
        parse_intra(*c, node, there, decisions);
      else if (sub == "comm_type=inter")
        validate_subtree(node, there);
      else
        throw Error(
            fmt::format("{}: choreo reads comm_type=intra and comm_type=inter under a "
                        "collective, not \"{}\"",
                        there, sub));
    }
  }
  sort_decisions(decisions);
  return decisions;
}

}  // namespace choreo
