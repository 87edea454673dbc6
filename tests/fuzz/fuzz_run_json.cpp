// Run results in JSON (choreo.run/1, read by `choreo report`): run_result_from_json.
#include "choreo/core/run_result.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  RunResult r;
  if (!fuzz::accepted([&] { r = run_result_from_json(fuzz::text_of(data, size)); })) return 0;
  fuzz::promise(run_result_from_json(run_result_to_json(r)) == r, "run result JSON round trip");
  return 0;
}
