// rules_write: writes an Open MPI coll_tuned rules file or an MPICH CSEL file with choreo's
// exporter (choreo/select/rules_export.hpp), reads it back and checks it gives the same decisions.
// Used by rules_proof.sh, which then shows that the library runs what the file chose.
//
//   rules_write --format ompi-rules|ompi5-rules|mpich-json
//               --decision COLL:RANKS:FROM=ALG[,FROM=ALG...] [--decision ...] -o FILE
// e.g. --decision allgather:4:0=bruck,1024=ring (bruck below 1024 bytes per rank, then ring).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../src/core/text.hpp"
#include "choreo/core/error.hpp"
#include "choreo/select/rules_export.hpp"

namespace {

template <typename T>
T number(std::string_view text, std::string_view what) {
  T value{};
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (status != std::errc() || end != text.data() + text.size())
    throw choreo::Error(fmt::format("{} '{}' is not a decimal integer", what, text));
  return value;
}

choreo::CollectiveDecision decision(std::string_view spec) {
  const auto fields = choreo::split(spec, ':');
  if (fields.size() != 3)
    throw choreo::Error(
        fmt::format("--decision '{}' is not COLL:RANKS:FROM=ALG[,FROM=ALG...]", spec));
  choreo::CollectiveDecision d{std::string(fields[0]), number<int>(fields[1], "rank count"), {}};
  for (std::string_view rule : choreo::split(fields[2], ',')) {
    const auto parts = choreo::split(rule, '=');
    if (parts.size() != 2)
      throw choreo::Error(fmt::format("rule '{}' in --decision '{}' is not FROM=ALG", rule, spec));
    d.rules.push_back({number<std::int64_t>(parts[0], "size"), std::string(parts[1])});
  }
  return d;
}

std::string describe(const std::vector<choreo::CollectiveDecision>& decisions) {
  std::string out;
  for (const auto& d : decisions) {
    out += fmt::format("{}{} on {} ranks:", out.empty() ? "" : "; ", d.collective, d.comm_size);
    for (const auto& r : d.rules) out += fmt::format(" {}+ B {}", r.from_bytes, r.algorithm);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string format, output;
    std::vector<choreo::CollectiveDecision> decisions;
    for (int i = 1; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (i + 1 >= argc) throw choreo::Error(fmt::format("{} needs a value", arg));
      if (arg == "--format")
        format = argv[++i];
      else if (arg == "--decision")
        decisions.push_back(decision(argv[++i]));
      else if (arg == "-o")
        output = argv[++i];
      else
        throw choreo::Error(fmt::format("unknown argument '{}'", arg));
    }
    if (output.empty() || decisions.empty())
      throw choreo::Error(
          "usage: rules_write --format ompi-rules|ompi5-rules|mpich-json --decision ... -o F");
    std::string text;
    std::vector<choreo::CollectiveDecision> back;
    if (format == "ompi-rules" || format == "ompi5-rules") {
      text =
          choreo::ompi_rules_text(decisions, format == "ompi5-rules" ? choreo::OmpiRulesFormat::v2
                                                                     : choreo::OmpiRulesFormat::v1);
      back = choreo::parse_ompi_rules(text);
    } else if (format == "mpich-json") {
      text = choreo::mpich_csel_json(decisions);
      back = choreo::parse_mpich_csel_json(text);
    } else {
      throw choreo::Error(
          fmt::format("--format '{}': use ompi-rules, ompi5-rules or mpich-json", format));
    }
    // The parsers return decisions by collective (allgather, allreduce, alltoall, bcast: the
    // order of Open MPI's ids too), then communicator size.
    std::ranges::sort(decisions, [](const auto& a, const auto& b) {
      return std::pair(a.collective, a.comm_size) < std::pair(b.collective, b.comm_size);
    });
    if (back != decisions)
      throw choreo::Error(fmt::format("{} read back as '{}', not '{}'", output, describe(back),
                                      describe(decisions)));
    std::ofstream(output) << text;
    fmt::print("rules_write: {} -> {} ({}), read back identical\n", describe(decisions), output,
               format);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rules_write: {}\n", e.what());
    return 1;
  }
}
