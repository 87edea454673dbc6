#include "cli/network_options.hpp"

namespace choreo::cli {

void add_placement_option(CLI::App& command, std::string& placement) {
  command.add_option(
      "--placement", placement,
      "Ranks on nodes: linear, round-robin, random:SEED or file:PATH (default linear)");
}

sim::NetworkSpec placed_network(const std::string& topology, const std::string& placement) {
  sim::NetworkSpec network = sim::parse_network(topology);
  sim::check_placement(placement);  // a wrong spelling fails here, with its own message
  network.placement = placement;
  return network;
}

}  // namespace choreo::cli
