// choreo convert IN -o OUT: JSON <-> GOAL, chosen by the file extensions.
#include <fmt/core.h>

#include "choreo/io.hpp"
#include "cli/common.hpp"

namespace choreo::cli {

void add_convert_command(CLI::App& app, const Global& global) {
  struct ConvertArgs {
    std::string in, out;
  };
  auto args = std::make_shared<ConvertArgs>();
  auto* cmd = app.add_subcommand(
      "convert", "Convert a schedule between JSON (.json) and LogGOPSim's GOAL (.goal)");
  cmd->add_option("IN", args->in, "Input schedule (.json or .goal)")->required();
  cmd->add_option("-o,--output", args->out, "Output schedule (.json or .goal)")->required();
  cmd->callback([args, &global] {
    Schedule s = load_schedule(args->in);
    save_schedule(s, args->out);
    std::size_t ops = 0;
    for (const auto& program : s.programs) ops += program.ops.size();
    if (global.json)
      print_json({{"input", args->in}, {"output", args->out}, {"ranks", s.ranks}, {"ops", ops}});
    else
      fmt::print("wrote {} ({} ranks, {} ops)\n", args->out, s.ranks, ops);
  });
}

}  // namespace choreo::cli
