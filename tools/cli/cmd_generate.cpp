// choreo generate SPEC -o FILE: write a generated collective's schedule (.json or .goal).
#include <fmt/core.h>

#include "choreo/coll.hpp"
#include "choreo/io.hpp"
#include "cli/common.hpp"

namespace choreo::cli {

void add_generate_command(CLI::App& app, const Global& global) {
  struct GenerateArgs {
    std::string spec, out;
  };
  auto a = std::make_shared<GenerateArgs>();
  std::string names;
  for (const auto& n : coll::generator_names()) names += (names.empty() ? "" : ", ") + n;
  auto* cmd = app.add_subcommand("generate", "Write the schedule of a collective algorithm");
  cmd->add_option("SPEC", a->spec,
                  "collective:algorithm:key=value..., e.g. allreduce:recdbl:ranks=64:bytes=8. "
                  "bytes is per rank for allgather, per destination for alltoall; optional "
                  "root (bcast) and reduce_ns (allreduce); docs/collectives.md. Generators: " +
                      names)
      ->required();
  cmd->add_option("-o,--output", a->out, "Schedule file to write (.json or .goal)")->required();
  cmd->callback([a, &global] {
    sim::CompactSchedule c = coll::generate(a->spec);
    Schedule s = sim::expand(c, a->spec.substr(0, a->spec.find(':', a->spec.find(':') + 1)));
    save_schedule(s, a->out);
    if (global.json)
      print_json({{"output", a->out},
                  {"spec", a->spec},
                  {"ranks", s.ranks},
                  {"ops", c.op_count()},
                  {"messages", s.message_count()}});
    else
      fmt::print("wrote {}: {} ({} ranks, {} ops, {} messages)\n", a->out, a->spec, s.ranks,
                 c.op_count(), s.message_count());
  });
}

}  // namespace choreo::cli
