#pragma once
// The message of the choreo::Error a call throws, or "no error": tests compare it with
// what a user would be told.
#include <string>
#include <utility>

#include "choreo/core/error.hpp"

namespace choreo::test {

template <typename F>
std::string error_of(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace choreo::test
