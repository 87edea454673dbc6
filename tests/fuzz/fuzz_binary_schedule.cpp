// Binary schedules (.cbs; docs/formats.md): decode_binary, the writer's round trip, and
// the promise that makes the structural check enough for `choreo sim x.cbs`: sim::validate
// and the simulator run whatever the check accepts to a result or a choreo::Error, never out
// of bounds. The expanded Schedule keeps the promises of every schedule (schedule_checks.hpp).
#include "choreo/core/binary_schedule.hpp"
#include "choreo/sim/engine.hpp"
#include "choreo/sim/validate.hpp"
#include "fuzz_support.hpp"
#include "schedule_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  CompactSchedule c;
  BinaryScheduleInfo info;
  if (!fuzz::accepted([&] { c = decode_binary(fuzz::text_of(data, size), "fuzz.cbs", &info); }))
    return 0;
  const std::string again = encode_binary(c, info.algorithm);
  BinaryScheduleInfo info_again;
  const CompactSchedule back = decode_binary(again, "again.cbs", &info_again);
  const Schedule s = choreo::expand(c, info.algorithm);
  fuzz::promise(choreo::expand(back, info_again.algorithm) == s && back.cpus() == c.cpus() &&
                    back.nics() == c.nics(),
                "a binary schedule decoded, encoded and decoded again is the same");
  if (c.op_count() > 4096) return 0;
  // What `choreo sim x.cbs` does with the mapped arrays: sim::validate, then the engine.
  fuzz::accepted([&] { sim::validate(c); });
  fuzz::accepted([&] { sim::simulate(c, sim::SimOptions{}); });
  fuzz::check_schedule(s);
  return 0;
}
