#pragma once
// Reading JSON with one clear line per problem, shared by choreo's JSON readers (patterns,
// schedules, machine profiles, MPICH CSEL files): a syntax error or an unknown key throws
// choreo::Error naming what is wrong and where, so a typo is an error rather than a silently
// dropped setting.
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "choreo/error.hpp"

namespace choreo {

/// `text` as JSON. A syntax error throws "invalid JSON: " and nlohmann's own words.
nlohmann::json parse_json(const std::string& text);

/// The Error for a syntax error nlohmann reported, worded as parse_json's (for readers that
/// parse with their own callback).
Error invalid_json(const nlohmann::json::parse_error& error);

/// Throws unless every key of `object` is in `allowed`; `path` names the object.
void check_keys(const nlohmann::json& object, const std::string& path,
                const std::set<std::string>& allowed);

}  // namespace choreo
