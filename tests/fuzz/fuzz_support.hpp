#pragma once
// What every fuzz target shares: bad input must end in choreo::Error (one clear line in the
// tools); anything else (another exception, a sanitizer report, a crash, a hang) is a bug.
// A broken promise (a round trip that changes the data) aborts with a message.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "choreo/core/error.hpp"

namespace choreo::fuzz {

/// Runs `read`; returns false when it threw choreo::Error (bad input, reported properly).
template <typename F>
bool accepted(F&& read) {
  try {
    read();
    return true;
  } catch (const Error&) {
    return false;
  }
}

/// Aborts, naming the broken promise, unless `ok`.
inline void promise(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: broken promise: %s\n", what);
  std::abort();
}

inline std::string text_of(const unsigned char* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace choreo::fuzz
