#pragma once
// choreo reports every problem as a choreo::Error whose message says what was wrong
// and how to fix it. Library code throws; the command-line tools print the message on
// one line and exit non-zero.
#include <stdexcept>
#include <string>

namespace choreo {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace choreo
