#pragma once
// The model `choreo sim` simulates under, as options: the LogGOPS parameters, the network and
// how its links are shared, the placement, the tcp switch and the noise. Shared by `choreo sim`
// (one setting) and the settings comparison (`choreo compare`, `choreo-mpi sweep compare`),
// where each setting is a string of these options.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "choreo/sim/engine.hpp"
#include "choreo/topo/network.hpp"

namespace choreo::cli {

struct SimModelArgs {
  std::string network = "ideal", placement = "linear", sharing = "serialize";
  sim::LogGOPS params;
  double link_G = -1;
  std::int64_t hop_latency = 0;
  TcpSpec tcp;
  bool tcp_options_given = false;  ///< set by note_tcp_options after a parse
  std::vector<std::string> noise;
  bool dma_receive = false;
};

/// Adds the model's options to `cmd`; `args` must outlive the parse.
void add_sim_model_options(CLI::App& cmd, SimModelArgs& args);

/// After `cmd` parsed: records whether any tcp switch option was given.
void note_tcp_options(const CLI::App& cmd, SimModelArgs& args);

/// The simulator's options for `args` (ops not recorded). Throws choreo::Error naming the
/// problem: a bad network, sharing, placement or noise spelling, tcp options without
/// `--sharing tcp`.
sim::SimOptions sim_options_of(const SimModelArgs& args);

}  // namespace choreo::cli
