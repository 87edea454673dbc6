// GOAL (LogGOPSim's schedule language) as choreo reads it: schedule_from_goal, and the
// simulator's streaming reader (sim::compact_from_goal), which must agree with it.
#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/goal_io.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/schedule_file.hpp"
#include "fuzz_support.hpp"
#include "schedule_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  const std::string text = fuzz::text_of(data, size);
  Schedule s;
  const bool read = fuzz::accepted([&] { s = schedule_from_goal(text); });
  if (read) fuzz::check_schedule(s);
  // The streaming reader checks op fields and self-dependencies as it builds: it may refuse
  // more than the Schedule reader, never less, and never what validate accepts.
  CompactSchedule streamed;
  const bool streamed_ok =
      fuzz::accepted([&] { streamed = sim::compact_from_goal(text).schedule; });
  fuzz::promise(!streamed_ok || read, "the streaming GOAL reader accepted what the reader refused");
  if (!read) return 0;
  const bool valid = fuzz::accepted([&] { validate(s); });
  fuzz::promise(streamed_ok || !valid, "the streaming GOAL reader refused a valid schedule");
  if (streamed_ok)
    fuzz::promise(choreo::expand(streamed) == choreo::expand(choreo::compact(s)),
                  "the streaming GOAL reader built another schedule");
  return 0;
}
