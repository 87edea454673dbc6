// Which algorithm MPICH 4.0.2 selects (csel.c) in a CSEL file for a call, and what an exported
// file changes against MPICH's stock tree.
#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/select/rules_export.hpp"
#include "rules_csel.hpp"
#include "rules_table.hpp"

namespace choreo::detail::rules {
namespace {

/// Whether MPIR_Csel_prune decides `key` when the communicator is created (prune_tree): the
/// conditions on the communicator, and =any.
bool csel_decided_at_creation(std::string_view key) {
  return key.starts_with("comm_type=") || key.starts_with("comm_size") ||
         key.starts_with("comm_hierarchy=") || key.starts_with("is_node_consecutive=") ||
         key.starts_with("comm_avg_ppn") || key.ends_with("=any");
}

/// The largest power of two <= p (MPICH's comm_ptr->coll.pof2).
std::int64_t csel_pof2(std::int64_t p) {
  std::int64_t v = 1;
  while (v <= p / 2) v *= 2;
  return v;
}

/// Whether condition `key` holds for `call`; `at_creation`: decided by MPIR_Csel_prune.
bool csel_holds(std::string_view key, const MpichCall& call, const Collective& c, bool at_creation,
                const std::string& path) {
  const std::int64_t p = call.comm_size;
  const std::int64_t b = call.bytes;
  auto undefined = [&](std::string_view what) {
    return Error(fmt::format("{}: MPICH 4.0.2 has no {} for {} (it aborts)", path, what, c.name));
  };
  auto only_for = [&](std::string_view collective, std::string_view what) {
    if (c.name != collective) throw undefined(what);
  };
  if (key.ends_with("=any")) return true;
  if (key == "comm_type=intra") return !call.intercomm;
  if (key == "comm_type=inter") return call.intercomm;
  if (key == "comm_size=pow2") return (p & (p - 1)) == 0;
  if (auto v = bound(key, "comm_size<=", path)) return p <= *v;
  // MPICH 4.0.2 prunes comm_size<N as <, but tests it as <= in MPIR_Csel_search.
  if (auto v = bound(key, "comm_size<", path)) return at_creation ? p < *v : p <= *v;
  if (key == "comm_hierarchy=parent") return call.node_hierarchy;
  if (key.starts_with("comm_hierarchy=")) return !call.node_hierarchy;  // node_roots, node, flat
  if (key == "is_multi_threaded=yes") return false;  // choreo's calls: MPI_THREAD_SINGLE
  if (key == "is_multi_threaded=no") return true;
  if (key.starts_with("avg_msg_size")) {
    if (c.mpich_total) throw undefined("avg_msg_size");
    if (auto v = bound(key, "avg_msg_size<=", path)) return b <= *v;
    if (auto v = bound(key, "avg_msg_size<", path)) return b < *v;
  }
  // total_msg_size: bytes x P for all four (recvcount, count or sendcount x P).
  if (auto v = bound(key, "total_msg_size<=", path)) return b <= *v / p;
  if (auto v = bound(key, "total_msg_size<", path)) return *v > 0 && b <= (*v - 1) / p;
  if (key.starts_with("count")) {
    if (c.name == "alltoall") throw undefined("count");  // get_count has no alltoall
    const std::int64_t count = b / call.element_bytes;
    if (auto v = bound(key, "count<=", path)) return count <= *v;
    if (key == "count<pow2") return count < csel_pof2(p);
  }
  if (key == "is_commutative=yes" || key == "is_commutative=no") {
    only_for("allreduce", "is_commutative");
    return call.commutative == key.ends_with("yes");
  }
  if (key == "is_op_built_in=yes" || key == "is_op_built_in=no") {
    only_for("allreduce", "is_op_built_in");
    return call.builtin_op == key.ends_with("yes");
  }
  if (key == "is_sendbuf_inplace=yes" || key == "is_sendbuf_inplace=no") {
    only_for("alltoall", "is_sendbuf_inplace");
    return call.in_place == key.ends_with("yes");
  }
  throw Error(fmt::format("{}: choreo does not model the CSEL condition \"{}\"", path, key));
}

/// The algorithm MPICH selects in `node` for `call`: the first condition that holds, in order,
/// down to an algorithm= leaf. `at_creation` turns false at the first condition on the call.
std::string csel_walk(const ordered_json& node, const MpichCall& call, const Collective& c,
                      bool& at_creation, const std::string& path) {
  if (auto algorithm = leaf_algorithm(node, path)) return *algorithm;
  for (const auto& [key, value] : node.items()) {
    if (!known_csel_key(key))
      throw Error(fmt::format("{}: unknown CSEL key \"{}\" (MPICH 4.0.2 aborts on it)", path, key));
    at_creation = at_creation && csel_decided_at_creation(key);
    const std::string here = child(path, key);
    if (csel_holds(key, call, c, at_creation, here))
      return csel_walk(value, call, c, at_creation, here);
  }
  throw Error(fmt::format(
      "{}: no condition holds for {} of {} B on {} ranks, and nothing follows (MPICH 4.0.2 "
      "aborts)",
      path, c.name, call.bytes, call.comm_size));
}

std::string csel_select_one(const ordered_json& root, const MpichCall& call) {
  const Collective* c = find_collective(call.collective);
  if (c == nullptr)
    throw Error(fmt::format("choreo models MPICH's selection of {}, not '{}'", collective_names(),
                            call.collective));
  if (call.comm_size < 1 || call.bytes < 0 || call.element_bytes < 1)
    throw Error(
        fmt::format("a call needs comm_size >= 1, bytes >= 0 and element_bytes >= 1, not "
                    "{}, {} and {}",
                    call.comm_size, call.bytes, call.element_bytes));
  const std::string key = fmt::format("collective={}", c->name);
  if (!root.is_object() || !root.contains(key))
    throw Error(fmt::format("$: no \"{}\": MPICH 4.0.2 finds no algorithm for {} and aborts", key,
                            c->name));
  bool at_creation = true;  // MPIR_Csel_prune starts afresh in each collective's subtree
  return csel_walk(root.at(key), call, *c, at_creation, child("$", key));
}

/// Where the choice of a subtree can change with the bytes of a call on `ranks` ranks.
void csel_breakpoints(const ordered_json& node, std::int64_t ranks, std::set<std::int64_t>& out) {
  if (!node.is_object()) return;
  for (const auto& [key, value] : node.items()) {
    if (auto v = bound(key, "avg_msg_size<=", key))
      out.insert(*v + 1);
    else if (auto w = bound(key, "avg_msg_size<", key))
      out.insert(*w);
    else if (auto x = bound(key, "total_msg_size<=", key))
      out.insert(*x / ranks + 1);
    else if (auto y = bound(key, "total_msg_size<", key))
      out.insert(ceil_div(*y, ranks));
    else if (auto z = bound(key, "count<=", key))
      out.insert(*z + 1);  // 1-byte elements
    else if (key == "count<pow2")
      out.insert(csel_pof2(ranks));
    csel_breakpoints(value, ranks, out);
  }
}

std::string choreo_name_of(const Collective& c, std::string_view mpich) {
  for (const Algorithm& a : c.algorithms)
    if (a.mpich == mpich) return std::string(a.name);
  return "";
}

}  // namespace
}  // namespace choreo::detail::rules

namespace choreo {

std::vector<std::string> mpich_csel_select(std::string_view csel_json,
                                           const std::vector<MpichCall>& calls) {
  using namespace detail::rules;
  const ordered_json root = parse_without_duplicate_keys(csel_json);
  std::vector<std::string> out;
  out.reserve(calls.size());
  for (const MpichCall& call : calls) out.push_back(csel_select_one(root, call));
  return out;
}

std::vector<DecisionChanges> mpich_export_changes(
    const std::vector<CollectiveDecision>& decisions) {
  using namespace detail::rules;
  const std::vector<Checked> checked = check(decisions, Library::mpich);
  const ordered_json file = parse_without_duplicate_keys(mpich_csel_json(decisions));
  const ordered_json& stock = mpich_stock_tree();
  std::vector<DecisionChanges> out;
  for (const Checked& k : checked) {
    const Collective& c = *k.collective;
    const int ranks = k.decision->comm_size;
    const std::string key = fmt::format("collective={}", c.name);
    std::set<std::int64_t> points = {0};
    csel_breakpoints(stock.at(key), ranks, points);
    csel_breakpoints(file.at(key), ranks, points);
    DecisionChanges changes{std::string(c.name), ranks, {}};
    for (const std::int64_t bytes : points) {
      MpichCall call;
      call.collective = c.name;
      call.comm_size = ranks;
      call.bytes = bytes;
      const std::string chosen = csel_select_one(file, call);
      const std::string was = csel_select_one(stock, call);
      if (!changes.ranges.empty() && changes.ranges.back().library_function == chosen &&
          changes.ranges.back().stock == was)
        continue;
      if (!changes.ranges.empty()) changes.ranges.back().to_bytes = bytes - 1;
      changes.ranges.push_back(
          {bytes, std::nullopt, choreo_name_of(c, chosen), chosen, was, choreo_name_of(c, was)});
    }
    out.push_back(std::move(changes));
  }
  return out;
}

}  // namespace choreo
