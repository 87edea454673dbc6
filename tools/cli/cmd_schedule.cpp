// choreo schedule --algo ALGO p.json -o s.json: turn a pattern into a schedule.
#include <fmt/core.h>

#include "choreo/io.hpp"
#include "choreo/sched.hpp"
#include "choreo/validate.hpp"
#include "cli/common.hpp"

namespace choreo::cli {

void add_schedule_command(CLI::App& app, const Global& global) {
  struct Args {
    std::string algo = "direct", in, out;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("schedule", "Schedule a pattern: the send order of every rank");
  cmd->add_option("PATTERN", args->in, "Pattern file (.json)")->required();
  cmd->add_option("--algo", args->algo,
                  "direct: post all receives, then send to r+1, r+2, ... with no delays")
      ->check(CLI::IsMember({"direct"}));
  cmd->add_option("-o,--output", args->out, "Schedule file to write (.json or .goal)")->required();
  cmd->callback([args, &global] {
    Schedule s = schedule_direct(load_pattern(args->in));
    validate(s);  // a scheduler's output must always pass; fail loudly if it does not
    save_schedule(s, args->out);
    if (global.json)
      print_json({{"output", args->out},
                  {"algorithm", s.algorithm},
                  {"ranks", s.ranks},
                  {"messages", s.message_count()},
                  {"bytes", s.message_bytes()}});
    else
      fmt::print("wrote {}: {} schedule, {} ranks, {} messages, {}\n", args->out, s.algorithm,
                 s.ranks, s.message_count(), human_bytes(static_cast<double>(s.message_bytes())));
  });
}

}  // namespace choreo::cli
