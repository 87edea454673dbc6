// choreo convert IN -o OUT: JSON <-> GOAL <-> binary (.cbs), chosen by the file extensions.
#include <fmt/core.h>

#include <filesystem>

#include "choreo/core/binary_schedule.hpp"
#include "choreo/core/io.hpp"
#include "choreo/sim/schedule_file.hpp"
#include "cli/common.hpp"

namespace choreo::cli {
namespace {

/// What a .cbs file does not keep (it holds what the simulator reads), said once on stderr.
void note_dropped(const Schedule& s, const std::string& out) {
  bool slots = false, regions = false;
  for (const auto& program : s.programs)
    for (const Op& op : program.ops) {
      slots = slots || op.slot != kNoSlot;
      regions = regions || op.region != Region{} || op.source != Region{};
    }
  if (slots || regions)
    fmt::print(stderr, "note: {} keeps no {}{}{} (the simulator does not read them)\n", out,
               slots ? "slots" : "", slots && regions ? " or " : "",
               regions ? "buffer regions" : "");
}

}  // namespace

void add_convert_command(CLI::App& app, const Global& global) {
  struct ConvertArgs {
    std::string in, out;
  };
  auto args = std::make_shared<ConvertArgs>();
  auto* cmd = app.add_subcommand("convert",
                                 "Convert a schedule between JSON (.json), LogGOPSim's GOAL "
                                 "(.goal) and choreo's binary schedule (.cbs)");
  cmd->add_option("IN", args->in, "Input schedule (.json, .goal or .cbs)")->required();
  cmd->add_option("-o,--output", args->out, "Output schedule (.json, .goal or .cbs)")->required();
  cmd->callback([args, &global] {
    int ranks = 0;
    std::size_t ops = 0;
    if (is_binary_schedule(args->out) && std::filesystem::path(args->in).extension() != ".json") {
      // GOAL streams into the compact form, a .cbs is mapped: no Schedule of every op in
      // between (JSON goes through one, which says what the .cbs cannot keep).
      const sim::LoadedSchedule loaded = sim::load_compact(args->in);
      save_binary_validated(loaded.schedule, loaded.algorithm, args->out);
      ranks = loaded.schedule.ranks();
      ops = loaded.schedule.op_count();
    } else {
      Schedule s = load_schedule(args->in);
      if (is_binary_schedule(args->out)) {
        note_dropped(s, args->out);
        save_binary_validated(choreo::compact(s), s.algorithm, args->out);
      } else {
        save_schedule(s, args->out);
      }
      ranks = s.ranks;
      for (const auto& program : s.programs) ops += program.ops.size();
    }
    if (global.json)
      print_json({{"input", args->in}, {"output", args->out}, {"ranks", ranks}, {"ops", ops}});
    else
      fmt::print("wrote {} ({} ranks, {} ops)\n", args->out, ranks, ops);
  });
}

}  // namespace choreo::cli
