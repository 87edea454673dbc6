// Patterns in JSON (choreo.pattern/1): pattern_from_json, and the writer's round trip.
#include "choreo/core/json_io.hpp"
#include "choreo/core/pattern.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  Pattern p;
  if (!fuzz::accepted([&] { p = pattern_from_json(fuzz::text_of(data, size)); })) return 0;
  fuzz::promise(pattern_from_json(pattern_to_json(p)) == p, "pattern JSON round trip");
  total_bytes(p);  // validated, so the sum fits
  return 0;
}
