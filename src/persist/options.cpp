#include "choreo/persist/options.hpp"

#include <fmt/format.h>

#include "choreo/core/error.hpp"

namespace choreo::persist {

std::string_view to_string(Engine engine) {
  switch (engine) {
    case Engine::Commands:
      return "commands";
    case Engine::Thread:
      return "thread";
    case Engine::Inline:
      return "inline";
  }
  return "?";
}

Engine engine_from_string(std::string_view name) {
  for (Engine engine : {Engine::Commands, Engine::Thread, Engine::Inline})
    if (name == to_string(engine)) return engine;
  throw Error(
      fmt::format("unknown persistent engine '{}'; choose commands, thread or inline", name));
}

}  // namespace choreo::persist
