#include "cli/sim_load.hpp"

#include <chrono>
#include <filesystem>

#include "choreo/coll/generators.hpp"
#include "choreo/core/binary_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/core/validate.hpp"
#include "choreo/sim/schedule_file.hpp"
#include "choreo/sim/trace.hpp"
#include "choreo/sim/validate.hpp"

namespace choreo::cli {
namespace {

/// A binary schedule (.cbs), simulated in place from its mapping: load_binary checks its
/// structure (what the engine indexes), sim::validate its semantics (matching, deadlocks),
/// unless the file says it passed when it was written.
CompactSchedule load_binary_file(const SimSource& a, std::string& algorithm) {
  BinaryScheduleInfo info;
  CompactSchedule s = load_binary(a.file, &info);
  algorithm = std::move(info.algorithm);
  if (!a.no_validate && (!info.validated || a.revalidate)) sim::validate(s);
  return s;
}

CompactSchedule load_file(const SimSource& a, std::string& algorithm, std::vector<int>& slots) {
  if (is_binary_schedule(a.file)) return load_binary_file(a, algorithm);
  if (!a.slots && std::filesystem::path(a.file).extension() != ".json") {
    // Straight into the compact form (GOAL text streams; no Schedule): what a file of
    // millions of ops needs. A trace wants the ops' slots, which only a Schedule keeps;
    // JSON is read whole anyway, and goes through a Schedule as before.
    sim::LoadedSchedule loaded = sim::load_compact(a.file);
    algorithm = std::move(loaded.algorithm);
    if (!a.no_validate) sim::validate(loaded.schedule);
    return std::move(loaded.schedule);
  }
  Schedule schedule = load_schedule(a.file);
  algorithm = schedule.algorithm;
  if (!a.no_validate) validate(schedule);
  if (a.slots) slots = sim::op_slots(schedule);
  return choreo::compact(schedule);
}

}  // namespace

std::string generated_algorithm(const std::string& spec) {
  return spec.substr(0, spec.find(':', spec.find(':') + 1));
}

SimSchedule load_for_sim(const SimSource& a) {
  if (a.file.empty() == a.generate.empty())
    throw Error("give either a schedule FILE or --generate SPEC (see --help)");
  const auto start = std::chrono::steady_clock::now();
  SimSchedule out;
  if (!a.generate.empty()) {
    out.name = a.generate;
    out.algorithm = generated_algorithm(a.generate);
    if (!a.op_by_op && !a.compact_form) out.shaped = coll::generate_shaped(a.generate);
    if (!out.shaped) out.compact = coll::generate(a.generate);
  } else {
    out.name = a.file;
    out.compact = load_file(a, out.algorithm, out.slots);
  }
  out.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace choreo::cli
