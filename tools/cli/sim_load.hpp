#pragma once
// The schedule `choreo sim` simulates, from a FILE (.json, .goal, .cbs) or a generator spec,
// shared with the settings comparison (`choreo compare`), which simulates each schedule under
// several settings.
#include <optional>
#include <string>
#include <vector>

#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/shaped_schedule.hpp"

namespace choreo::cli {

/// What to load and how.
struct SimSource {
  std::string file, generate;  ///< exactly one
  bool no_validate = false;    ///< skip `choreo validate`'s checks of a file
  bool revalidate = false;     ///< check a .cbs even if its header says it passed
  bool compact_form = false;   ///< a generated schedule op by op, not in shared rank shapes
  bool op_by_op = false;       ///< the simulation records every op: no shared shapes
  bool slots = false;          ///< keep a JSON file's ops' slots (for a trace)
};

/// A loaded schedule: `shaped` where the generator builds shared rank shapes (8 B an op, what
/// lets a 2^23-rank allreduce fit in memory) and nothing asks for ops one by one, else
/// `compact`.
struct SimSchedule {
  std::string name, algorithm;
  std::optional<ShapedSchedule> shaped;
  CompactSchedule compact;
  std::vector<int> slots;  ///< a JSON file's ops' slots, when asked for
  double build_seconds = 0;
};

/// Loads and (unless told not to) validates. Throws choreo::Error naming the problem, or when
/// both or neither of file and generate are given.
SimSchedule load_for_sim(const SimSource& source);

/// "collective:algorithm" of a generator spec.
std::string generated_algorithm(const std::string& spec);

}  // namespace choreo::cli
