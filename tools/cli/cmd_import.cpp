// choreo import DIR -o app.goal|app.json: a recording (CHOREO_RECORD=DIR) as a schedule that
// `choreo sim` replays (docs/record-replay.md).
#include <fmt/core.h>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/replay/import.hpp"
#include "choreo/replay/trace_format.hpp"
#include "cli/common.hpp"

namespace choreo::cli {

void add_import_command(CLI::App& app, const Global& global) {
  struct ImportArgs {
    std::string dir, out;
    std::vector<std::string> algorithms;
    double calc_scale = 1.0;
  };
  auto a = std::make_shared<ImportArgs>();
  auto* cmd = app.add_subcommand(
      "import", "Turn a recording (CHOREO_RECORD=DIR) into a schedule for choreo sim");
  cmd->add_option("DIR", a->dir, "The directory of rank-<r>.ctr files the recorded run wrote")
      ->required();
  cmd->add_option("-o,--output", a->out, "Schedule file to write (.json or .goal)")->required();
  cmd->add_option("--algorithm", a->algorithms,
                  "COLL=ALG: expand every COLL by ALG instead of the MPI library's default, e.g. "
                  "bcast=binomial, allreduce=ring, alltoallv=direct (repeatable; "
                  "docs/record-replay.md lists them)");
  cmd->add_option("--calc-scale", a->calc_scale,
                  "Multiply the recorded computation between calls by this (0: communication "
                  "alone)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([a, &global] {
    replay::ImportOptions options;
    options.calc_scale = a->calc_scale;
    for (const std::string& item : a->algorithms) {
      const auto equals = item.find('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == item.size())
        throw Error(fmt::format("--algorithm {}: write COLL=ALG, e.g. bcast=binomial", item));
      options.algorithms[item.substr(0, equals)] = item.substr(equals + 1);
    }
    const std::vector<trace::RankTrace> traces = trace::read_directory(a->dir);
    const Schedule s = replay::import_traces(traces, options);
    save_schedule(s, a->out);
    std::size_t ops = 0;
    for (const auto& program : s.programs) ops += program.ops.size();
    std::size_t records = 0;
    for (const auto& t : traces) records += t.events.size();
    if (global.json)
      print_json({{"input", a->dir},
                  {"output", a->out},
                  {"ranks", s.ranks},
                  {"records", records},
                  {"ops", ops},
                  {"messages", s.message_count()},
                  {"mpi_library", traces[0].header.mpi_library}});
    else
      fmt::print("wrote {}: {} ranks, {} records, {} ops, {} messages (recorded with {})\n", a->out,
                 s.ranks, records, ops, s.message_count(), traces[0].header.mpi_library);
  });
}

}  // namespace choreo::cli
