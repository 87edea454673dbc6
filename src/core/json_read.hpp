#pragma once
// Reading JSON with one clear line per problem, shared by choreo's JSON readers (patterns,
// schedules, runs, machine profiles, MPICH CSEL files). The reader is strict: a syntax error,
// a key given twice in one object (JSON leaves its meaning open; nlohmann would keep the
// last, silently dropping e.g. a dependency) and a number beyond a double all throw
// choreo::Error naming the place (line and column, or the path of keys), and check_keys makes
// an unknown key an error rather than a silently dropped setting.
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "choreo/core/error.hpp"

namespace choreo {

/// `text` as JSON, strictly (see above). Errors start with "invalid JSON: ".
nlohmann::json parse_json(const std::string& text);
/// The same, keeping the keys in file order.
nlohmann::ordered_json parse_ordered_json(const std::string& text);

/// The Error for a syntax error nlohmann reported, worded as parse_json's (for readers that
/// parse with their own callback).
Error invalid_json(const nlohmann::json::parse_error& error);

/// `text` as a JSON string literal ("\"ring\""), or choreo::Error naming `what` when it is
/// not UTF-8: JSON holds only UTF-8 text, so a writer refuses rather than write a file that
/// no reader takes back.
std::string json_string(const std::string& text, std::string_view what);

/// object[key] as an integer within [min, max]. Throws naming `path` and the key when it is
/// missing, not an integer, or out of range.
std::int64_t get_integer(const nlohmann::json& object, const std::string& path, const char* key,
                         std::int64_t min, std::int64_t max);
/// object[key] as a finite number >= min, with the same messages.
double get_finite(const nlohmann::json& object, const std::string& path, const char* key,
                  double min);
/// `value` as a finite number >= min; `where` names it in messages.
double as_finite(const nlohmann::json& value, const std::string& where, double min);
/// object[key] as a string, with the same messages.
std::string get_text(const nlohmann::json& object, const std::string& path, const char* key);

/// Throws unless every key of `object` is in `allowed`; `path` names the object.
void check_keys(const nlohmann::json& object, const std::string& path,
                const std::set<std::string>& allowed);

}  // namespace choreo
