// The CSEL JSON tree of MPICH 4.0.2 (rules_csel.hpp): parsed strictly, its stock tree, and the
// keys MPICH knows.
#include "rules_csel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/json_read.hpp"
#include "choreo/core/error.hpp"
#include "choreo/select/rules_export.hpp"

namespace choreo::detail::rules {
namespace {

#include "mpich_stock_csel.inc"  // kMpichStockCsel: src/select/data/mpich-4.0.2-mpir-generic.json

bool is_uint(std::string_view text) {
  return !text.empty() && text.size() <= 10 &&
         std::ranges::all_of(text, [](char ch) { return ch >= '0' && ch <= '9'; });
}

bool is_container_key(std::string_view key) {
  return key.starts_with("algorithm=") || key.starts_with("composition=");
}

}  // namespace

std::string child(const std::string& path, const std::string& key) {
  return fmt::format("{}[\"{}\"]", path, key);
}

ordered_json parse_without_duplicate_keys(std::string_view text) {
  std::vector<std::pair<std::set<std::string>, std::string>> objects;  // keys, path
  std::string pending_key;
  auto callback = [&](int, ordered_json::parse_event_t event, ordered_json& parsed) {
    using E = ordered_json::parse_event_t;
    if (event == E::object_start || event == E::array_start) {
      std::string path = objects.empty() ? "$" : child(objects.back().second, pending_key);
      objects.emplace_back(std::set<std::string>{}, std::move(path));
    } else if (event == E::object_end || event == E::array_end) {
      objects.pop_back();
    } else if (event == E::key) {
      pending_key = parsed.get<std::string>();
      if (!objects.back().first.insert(pending_key).second)
        throw Error(fmt::format("{}: key \"{}\" appears twice; MPICH would keep only one",
                                objects.back().second, pending_key));
    }
    return true;
  };
  try {
    return ordered_json::parse(text.begin(), text.end(), callback);
  } catch (const nlohmann::json::parse_error& e) {
    throw invalid_json(e);
  } catch (const nlohmann::json::out_of_range& e) {  // a number beyond a double: 1e400
    const std::string what = e.what();
    throw Error(
        fmt::format("invalid JSON: {}; numbers must fit a double",
                    what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2)));
  }
}

const ordered_json& mpich_stock_tree() {
  static const ordered_json tree = parse_without_duplicate_keys(kMpichStockCsel);
  return tree;
}

const ordered_json& mpich_stock_intra(const Collective& c) {
  return mpich_stock_tree().at(fmt::format("collective={}", c.name)).at("comm_type=intra");
}

bool known_csel_key(std::string_view key) {
  static const std::set<std::string_view> exact = {"is_multi_threaded=yes",
                                                   "is_multi_threaded=no",
                                                   "comm_type=intra",
                                                   "comm_type=inter",
                                                   "comm_size=pow2",
                                                   "comm_size=node_comm_size",
                                                   "comm_size=any",
                                                   "count<pow2",
                                                   "count=any",
                                                   "avg_msg_size=any",
                                                   "total_msg_size=any",
                                                   "is_commutative=yes",
                                                   "is_commutative=no",
                                                   "is_sendbuf_inplace=yes",
                                                   "is_sendbuf_inplace=no",
                                                   "is_op_built_in=yes",
                                                   "is_op_built_in=no",
                                                   "is_block_regular=yes",
                                                   "is_block_regular=no",
                                                   "is_node_consecutive=yes",
                                                   "is_node_consecutive=no",
                                                   "comm_hierarchy=parent",
                                                   "comm_hierarchy=node_roots",
                                                   "comm_hierarchy=node",
                                                   "comm_hierarchy=flat",
                                                   "comm_hierarchy=any"};
  if (exact.contains(key)) return true;
  for (std::string_view prefix :
       {"comm_size<=", "comm_size<", "count<=", "avg_msg_size<=", "avg_msg_size<",
        "total_msg_size<=", "total_msg_size<", "comm_avg_ppn<="})
    if (key.starts_with(prefix)) return is_uint(key.substr(prefix.size()));
  return false;
}

std::optional<std::string> leaf_algorithm(const ordered_json& node, const std::string& path) {
  if (!node.is_object())
    throw Error(fmt::format("{}: expected a JSON object, found {}", path, node.type_name()));
  if (node.empty())
    throw Error(fmt::format("{}: an empty object selects nothing; MPICH aborts on it", path));
  bool container = false;
  for (const auto& [key, value] : node.items()) container |= is_container_key(key);
  if (!container) return std::nullopt;
  const auto first = node.begin();
  const std::string& key = first.key();
  const ordered_json& value = first.value();
  if (node.size() != 1 || !is_container_key(key))
    throw Error(fmt::format("{}: an algorithm= key must be alone in its object", path));
  if (!value.is_object() || !value.empty())
    throw Error(fmt::format("{}: the value of \"{}\" must be {{}}", child(path, key), key));
  if (!key.starts_with("algorithm="))
    throw Error(
        fmt::format("{}: composition= names a CH4 composition; an MPIR-level file "
                    "names algorithm=MPIR_...",
                    child(path, key)));
  return std::string(key.substr(std::string_view("algorithm=").size()));
}

std::optional<std::int64_t> bound(std::string_view key, std::string_view prefix,
                                  const std::string& path) {
  if (!key.starts_with(prefix) || !is_uint(key.substr(prefix.size()))) return std::nullopt;
  const std::int64_t value = std::stoll(std::string(key.substr(prefix.size())));
  if (value > kIntMax)
    throw Error(fmt::format("{}: {} is above the {} MPICH 4.0.2 reads (it parses with atoi)", path,
                            value, kIntMax));
  return value;
}

}  // namespace choreo::detail::rules

namespace choreo {

std::string_view mpich_stock_csel_json() { return detail::rules::kMpichStockCsel; }

}  // namespace choreo
