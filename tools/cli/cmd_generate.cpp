// choreo generate SPEC -o FILE: write a generated collective's schedule (.json, .goal or .cbs).
#include <fmt/core.h>

#include "choreo/coll/generators.hpp"
#include "choreo/core/binary_schedule.hpp"
#include "choreo/core/io.hpp"
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
  cmd->add_option("-o,--output", a->out, "Schedule file to write (.json, .goal or .cbs)")
      ->required();
  cmd->callback([a, &global] {
    CompactSchedule c = coll::generate(a->spec);
    const std::string algorithm = a->spec.substr(0, a->spec.find(':', a->spec.find(':') + 1));
    std::int64_t messages = 0;
    if (is_binary_schedule(a->out)) {
      // Straight from the compact arrays: no Schedule of every op in between.
      save_binary_validated(c, algorithm, a->out);
      for (OpIndex i = 0; i < c.op_count(); ++i) messages += c.kind(i) == OpKind::Send ? 1 : 0;
    } else {
      Schedule s = choreo::expand(c, algorithm);
      save_schedule(s, a->out);
      messages = s.message_count();
    }
    if (global.json)
      print_json({{"output", a->out},
                  {"spec", a->spec},
                  {"ranks", c.ranks()},
                  {"ops", c.op_count()},
                  {"messages", messages}});
    else
      fmt::print("wrote {}: {} ({} ranks, {} ops, {} messages)\n", a->out, a->spec, c.ranks(),
                 c.op_count(), messages);
  });
}

}  // namespace choreo::cli
