#include "json_read.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "text.hpp"

namespace choreo {
namespace {

/// Where the parser is, for messages: a stack of the open objects and arrays. Objects
/// remember their keys so far (to refuse a second one of the same name), arrays how many
/// elements they have finished.
class JsonPath {
 public:
  void open(bool object) { frames_.push_back(Frame{object, false, {}, 0, {}}); }
  void close() {
    frames_.pop_back();
    finish_value();
  }
  /// False when the open object already has this key.
  bool add_key(const std::string& key) {
    Frame& f = frames_.back();
    f.key = key;
    f.has_key = true;
    return f.keys.insert(key).second;
  }
  void finish_value() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().elements;
  }
  /// "programs[0].ops[3].seconds", or "the top level".
  std::string text() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.object) {
        if (f.has_key) out += (out.empty() ? "" : ".") + f.key;
      } else {
        out += fmt::format("[{}]", f.elements);
      }
    }
    return out.empty() ? "the top level" : out;
  }

 private:
  struct Frame {
    bool object;
    bool has_key;     ///< objects: a key was read
    std::string key;  ///< objects: the last key read
    std::size_t elements;
    std::set<std::string> keys;
  };
  std::vector<Frame> frames_;
};

std::string without_id(const std::string& what) {
  // nlohmann's message names the place; keep only its own words, not the
  // "[json.exception.parse_error.101] " id in front of them.
  const auto close = what.find("] ");
  return close == std::string::npos ? what : what.substr(close + 2);
}

template <typename Json>
Json parse_strictly(const std::string& text) {
  using Event = typename Json::parse_event_t;
  JsonPath path;
  auto callback = [&](int, Event event, Json& parsed) {
    switch (event) {
      case Event::object_start:
        path.open(true);
        break;
      case Event::array_start:
        path.open(false);
        break;
      case Event::object_end:
      case Event::array_end:
        path.close();
        break;
      case Event::key: {
        const std::string& key = parsed.template get_ref<const std::string&>();
        if (!path.add_key(key))
          throw Error(fmt::format(
              "invalid JSON: {}: the key \"{}\" appears twice in one object; keep one (JSON "
              "does not say which one counts)",
              path.text(), key));
        break;
      }
      case Event::value:
        path.finish_value();
        break;
    }
    return true;
  };
  try {
    return Json::parse(text, callback);
  } catch (const nlohmann::json::parse_error& e) {
    throw invalid_json(e);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double ("1e400"): the parser names the number, the path its key.
    throw Error(fmt::format("invalid JSON: {}: {}; numbers must fit a double", path.text(),
                            without_id(e.what())));
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("invalid JSON: {}: {}", path.text(), without_id(e.what())));
  }
}

}  // namespace

nlohmann::json parse_json(const std::string& text) { return parse_strictly<nlohmann::json>(text); }

nlohmann::ordered_json parse_ordered_json(const std::string& text) {
  return parse_strictly<nlohmann::ordered_json>(text);
}

Error invalid_json(const nlohmann::json::parse_error& error) {
  return Error(fmt::format("invalid JSON: {}", without_id(error.what())));
}

std::string json_string(const std::string& text, std::string_view what) {
  if (!is_utf8(text))
    throw Error(fmt::format("{} is not UTF-8 text, which is all JSON can hold; rename it", what));
  return nlohmann::json(text).dump();
}

namespace {
const nlohmann::json& field(const nlohmann::json& object, const std::string& path,
                            const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) throw Error(fmt::format("{}: missing \"{}\"", path, key));
  return *it;
}
}  // namespace

std::int64_t get_integer(const nlohmann::json& object, const std::string& path, const char* key,
                         std::int64_t min, std::int64_t max) {
  const nlohmann::json& v = field(object, path, key);
  if (!v.is_number_integer())
    throw Error(fmt::format("{}: \"{}\" must be an integer, not {}", path, key, v.dump()));
  const auto out_of_range = [&] {
    return Error(fmt::format("{}: \"{}\" = {} is out of range: it must be {} to {}", path, key,
                             v.dump(), min, max));
  };
  if (v.is_number_unsigned()) {  // nlohmann reads every integer >= 0 as unsigned
    const auto u = v.get<std::uint64_t>();
    if (max < 0 || u > static_cast<std::uint64_t>(max) ||
        (min > 0 && u < static_cast<std::uint64_t>(min)))
      throw out_of_range();
    return static_cast<std::int64_t>(u);
  }
  const auto i = v.get<std::int64_t>();
  if (i < min || i > max) throw out_of_range();
  return i;
}

double as_finite(const nlohmann::json& value, const std::string& where, double min) {
  if (!value.is_number())
    throw Error(fmt::format("{} must be a number, not {}", where, value.dump()));
  const double x = value.get<double>();
  if (!std::isfinite(x) || x < min)
    throw Error(
        fmt::format("{} = {} is out of range: it must be at least {}", where, value.dump(), min));
  return x;
}

double get_finite(const nlohmann::json& object, const std::string& path, const char* key,
                  double min) {
  return as_finite(field(object, path, key), fmt::format("{}: \"{}\"", path, key), min);
}

std::string get_text(const nlohmann::json& object, const std::string& path, const char* key) {
  const nlohmann::json& v = field(object, path, key);
  if (!v.is_string())
    throw Error(fmt::format("{}: \"{}\" must be a string, not {}", path, key, v.dump()));
  return v.get<std::string>();
}

void check_keys(const nlohmann::json& object, const std::string& path,
                const std::set<std::string>& allowed) {
  for (const auto& [key, value] : object.items())
    if (!allowed.contains(key)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw Error(fmt::format("{}: unknown key \"{}\"; allowed here: {}", path, key, list));
    }
}

}  // namespace choreo
