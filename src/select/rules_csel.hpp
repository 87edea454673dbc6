#pragma once
// Private to the MPICH writer, reader and selection model (rules_mpich_*.cpp): the CSEL JSON
// tree, MPICH 4.0.2's stock tree and the keys MPICH knows (rules_csel.cpp).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "rules_table.hpp"

namespace choreo::detail::rules {

using ordered_json = nlohmann::ordered_json;

/// `path`["`key`"]: where a message points in a CSEL file.
std::string child(const std::string& path, const std::string& key);

/// JSON text to a tree, with duplicate keys rejected (json-c, which MPICH uses, would keep one
/// of them silently).
ordered_json parse_without_duplicate_keys(std::string_view text);

/// MPICH 4.0.2's stock tree, parsed once.
const ordered_json& mpich_stock_tree();

/// The stock comm_type=intra subtree of a collective choreo decides.
const ordered_json& mpich_stock_intra(const Collective& c);

/// Keys MPICH 4.0.2's CSEL parser knows (csel.c parse_json_tree); others make it abort.
bool known_csel_key(std::string_view key);

/// The algorithm of a leaf {"algorithm=NAME": {}}, or nullopt when `node` is not a leaf.
std::optional<std::string> leaf_algorithm(const ordered_json& node, const std::string& path);

/// N of a key "PREFIX N", which MPICH reads with atoi.
std::optional<std::int64_t> bound(std::string_view key, std::string_view prefix,
                                  const std::string& path);

}  // namespace choreo::detail::rules
