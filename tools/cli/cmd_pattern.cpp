// choreo pattern KIND --ranks N --bytes K -o p.json: generate a communication pattern.
#include <fmt/core.h>

#include "choreo/io.hpp"
#include "cli/common.hpp"

namespace choreo::cli {
namespace {

struct Args {
  std::string kind, out;
  int ranks = 0;
  std::int64_t bytes = 64512;  // 63 KiB: paper 000's largest eager message
  int root = 0;
};

Pattern generate(const Args& a) {
  if (a.kind == "alltoall") return patterns::alltoall(a.ranks, a.bytes);
  if (a.kind == "gather") return patterns::gather(a.ranks, a.bytes, a.root);
  if (a.kind == "scatter") return patterns::scatter(a.ranks, a.bytes, a.root);
  return patterns::triangle(a.ranks, a.bytes);
}

}  // namespace

void add_pattern_command(CLI::App& app, const Global& global) {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("pattern",
                                 "Generate a communication pattern (who sends how much to whom)");
  cmd->add_option("KIND", args->kind, "alltoall, gather, scatter or triangle")
      ->required()
      ->check(CLI::IsMember({"alltoall", "gather", "scatter", "triangle"}));
  cmd->add_option("--ranks", args->ranks, "Number of ranks")
      ->required()
      ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--bytes", args->bytes, "Bytes per message (default 64512 = 63 KiB)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--root", args->root, "Root rank of gather and scatter (default 0)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("-o,--output", args->out, "Pattern file to write (.json)")->required();
  cmd->callback([args, &global] {
    Pattern p = generate(*args);
    save_pattern(p, args->out);
    std::int64_t bytes = 0;
    for (const auto& m : p.messages) bytes += m.bytes;
    if (global.json)
      print_json({{"output", args->out},
                  {"kind", args->kind},
                  {"ranks", p.ranks},
                  {"messages", p.messages.size()},
                  {"bytes", bytes}});
    else
      fmt::print("wrote {}: {} on {} ranks, {} messages, {}\n", args->out, args->kind, p.ranks,
                 p.messages.size(), human_bytes(static_cast<double>(bytes)));
  });
}

}  // namespace choreo::cli
