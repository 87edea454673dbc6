#include "cli/network_options.hpp"

namespace choreo::cli {

void add_placement_option(CLI::App& command, std::string& placement) {
  command.add_option(
      "--placement", placement,
      "Ranks on nodes: linear, round-robin, random:SEED or file:PATH (default linear)");
}

NetworkSpec placed_network(const std::string& topology, const std::string& placement) {
  NetworkSpec network = parse_network(topology);
  check_placement(placement);  // a wrong spelling fails here, with its own message
  network.placement = placement;
  return network;
}

}  // namespace choreo::cli
