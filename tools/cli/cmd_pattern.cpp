// choreo pattern KIND --ranks N [--bytes K | --sizes uniform:MIN:MAX] [--m0 M0 --m M |
// --density D] [--seed S] -o p.json: generate a communication pattern.
#include <fmt/core.h>

#include <charconv>
#include <string_view>
#include <utility>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/core/pattern.hpp"
#include "choreo/select/select.hpp"
#include "cli/common.hpp"
#include "command_line.hpp"

namespace choreo::cli {
namespace {

struct PatternArgs {
  std::string kind, out;
  int ranks = 0;
  std::int64_t bytes = 64512;  // 63 KiB: paper 000's largest eager message
  int root = 0;
  int m0 = 0;              // scale-free: initial vertices (required)
  int m = 0;               // scale-free: edges per new vertex (0: same as m0)
  double density = -1;     // random: density D (required)
  std::uint64_t seed = 1;  // scale-free, random and --sizes
  std::string sizes;       // uniform:MIN:MAX, or empty: every message --bytes
};

/// "uniform:MIN:MAX" -> {MIN, MAX}.
std::pair<std::int64_t, std::int64_t> parse_sizes(std::string_view text) {
  auto fail = [&] {
    return Error(
        fmt::format("--sizes '{}': write uniform:MIN:MAX with MIN and MAX in bytes, e.g. "
                    "uniform:1024:1048576 or uniform:1K:1M",
                    text));
  };
  constexpr std::string_view kind = "uniform:";
  if (!text.starts_with(kind)) throw fail();
  const std::string_view rest = text.substr(kind.size());
  const std::size_t colon = rest.find(':');
  if (colon == std::string_view::npos) throw fail();
  auto number = [&](std::string_view digits) {
    try {
      return select::parse_size(digits);  // 1024, 1K, 1KiB, 1M
    } catch (const Error&) {
      throw fail();
    }
  };
  return {number(rest.substr(0, colon)), number(rest.substr(colon + 1))};
}

Pattern generate(const PatternArgs& a) {
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
  auto args = std::make_shared<PatternArgs>();
  auto* cmd = app.add_subcommand("pattern",
                                 "Generate a communication pattern (who sends how much to whom)");
  cmd->add_option("KIND", args->kind, "alltoall, gather, scatter, triangle, scale-free or random")
      ->required()
      ->check(CLI::IsMember({"alltoall", "gather", "scatter", "triangle", "scale-free", "random"}));
  cmd->add_option("--ranks", args->ranks, "Number of ranks")
      ->required()
      ->check(CLI::Range(1, 1 << 24));
  auto* bytes_option = cmd->add_option("--bytes", args->bytes,
                                       "Bytes per message, e.g. 63K (default 64512 = 63 KiB)")
                           ->transform(choreo::tools::byte_size());
  cmd->add_option("--sizes", args->sizes,
                  "Instead of --bytes, a size per message: uniform:MIN:MAX draws each one "
                  "uniformly from MIN..MAX bytes (seeded by --seed)")
      ->excludes(bytes_option);
  cmd->add_option("--root", args->root, "Root rank of gather and scatter (default 0)")
      ->check(choreo::tools::at_least(0));
  cmd->add_option("--m0", args->m0,
                  "scale-free: initial vertices, no edges among them (required; paper 000 uses "
                  "m0 = m in {4, 7, 12, 17, 28} on 64 ranks)")
      ->check(choreo::tools::positive());
  cmd->add_option("--m", args->m, "scale-free: edges from each new vertex, <= m0 (default m0)")
      ->check(choreo::tools::positive());
  cmd->add_option("--density", args->density,
                  "random: density D = messages / (n (n-1)) in [0, 1] (required)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", args->seed, "scale-free, random and --sizes: random seed (default 1)");
  cmd->add_option("-o,--output", args->out, "Pattern file to write (.json)")->required();
  cmd->callback([args, &global] {
    const auto sizes = args->sizes.empty() ? std::pair<std::int64_t, std::int64_t>{}
                                           : parse_sizes(args->sizes);  // fail before working
    Pattern p = generate(*args);
    if (!args->sizes.empty())
      p = patterns::with_random_sizes(std::move(p), sizes.first, sizes.second, args->seed);
    validate(p);  // limits and the sum of all sizes, before anything is written
    const std::int64_t bytes = total_bytes(p);
    save_pattern(p, args->out);
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
