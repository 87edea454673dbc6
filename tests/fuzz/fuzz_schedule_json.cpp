// Schedules in JSON (choreo.schedule/1): schedule_from_json.
#include "choreo/core/json_io.hpp"
#include "fuzz_support.hpp"
#include "schedule_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  Schedule s;
  if (fuzz::accepted([&] { s = schedule_from_json(fuzz::text_of(data, size)); }))
    fuzz::check_schedule(s);
  return 0;
}
