// GOAL (LogGOPSim's schedule language) as choreo reads it: schedule_from_goal.
#include "choreo/goal_io.hpp"
#include "fuzz_support.hpp"
#include "schedule_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  Schedule s;
  if (fuzz::accepted([&] { s = schedule_from_goal(fuzz::text_of(data, size)); }))
    fuzz::check_schedule(s);
  return 0;
}
