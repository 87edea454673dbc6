// choreo pattern KIND --ranks N --bytes K [--m0 M0 --m M | --density D] [--seed S] -o p.json:
// generate a communication pattern.
#include <fmt/core.h>

#include "choreo/error.hpp"
#include "choreo/io.hpp"
#include "choreo/pattern.hpp"
#include "cli/common.hpp"

namespace choreo::cli {
namespace {

struct Args {
  std::string kind, out;
  int ranks = 0;
  std::int64_t bytes = 64512;  // 63 KiB: paper 000's largest eager message
  int root = 0;
  int m0 = 0;              // scale-free: initial vertices (required)
  int m = 0;               // scale-free: edges per new vertex (0: same as m0)
  double density = -1;     // random: density D (required)
  std::uint64_t seed = 1;  // scale-free and random
};

Pattern generate(const Args& a) {
  if (a.kind == "alltoall") return patterns::alltoall(a.ranks, a.bytes);
  if (a.kind == "gather") return patterns::gather(a.ranks, a.bytes, a.root);
  if (a.kind == "scatter") return patterns::scatter(a.ranks, a.bytes, a.root);
  if (a.kind == "scale-free") {
    if (a.m0 < 1) throw Error("scale-free needs --m0 (initial vertices, at least 1)");
    return patterns::scale_free(a.ranks, a.m0, a.m > 0 ? a.m : a.m0, a.bytes, a.seed);
  }
  if (a.kind == "random") {
    if (a.density < 0) throw Error("random needs --density (a density D in [0, 1])");
    return patterns::random_density(a.ranks, a.density, a.bytes, a.seed);
  }
  return patterns::triangle(a.ranks, a.bytes);
}

}  // namespace

void add_pattern_command(CLI::App& app, const Global& global) {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("pattern",
                                 "Generate a communication pattern (who sends how much to whom)");
  cmd->add_option("KIND", args->kind, "alltoall, gather, scatter, triangle, scale-free or random")
      ->required()
      ->check(CLI::IsMember({"alltoall", "gather", "scatter", "triangle", "scale-free", "random"}));
  cmd->add_option("--ranks", args->ranks, "Number of ranks")
      ->required()
      ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--bytes", args->bytes, "Bytes per message (default 64512 = 63 KiB)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--root", args->root, "Root rank of gather and scatter (default 0)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--m0", args->m0,
                  "scale-free: initial vertices, no edges among them (required; paper 000 uses "
                  "m0 = m in {4, 7, 12, 17, 28} on 64 ranks)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--m", args->m, "scale-free: edges from each new vertex, <= m0 (default m0)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--density", args->density,
                  "random: density D = messages / (n (n-1)) in [0, 1] (required)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", args->seed, "scale-free and random: random seed (default 1)");
  cmd->add_option("-o,--output", args->out, "Pattern file to write (.json)")->required();
  cmd->callback([args, &global] {
    Pattern p = generate(*args);
    save_pattern(p, args->out);
    std::int64_t bytes = 0;
    for (const auto& m : p.messages) bytes += m.bytes;
    const double D = patterns::density(p);
    if (global.json)
      print_json({{"output", args->out},
                  {"kind", args->kind},
                  {"ranks", p.ranks},
                  {"messages", p.messages.size()},
                  {"bytes", bytes},
                  {"density", D}});
    else
      fmt::print("wrote {}: {} on {} ranks, {} messages, {}, density D = {:.4f}\n", args->out,
                 args->kind, p.ranks, p.messages.size(), human_bytes(static_cast<double>(bytes)),
                 D);
  });
}

}  // namespace choreo::cli
