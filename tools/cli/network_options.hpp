#pragma once
// The simulated network the commands that predict or simulate (`choreo sim`, `choreo select`)
// put their ranks on: one --placement option and one way to combine it with the topology.
#include <CLI/CLI.hpp>
#include <string>

#include "choreo/topo/network.hpp"

namespace choreo::cli {

/// Adds --placement, how ranks sit on the nodes of the network, bound to `placement`.
void add_placement_option(CLI::App& command, std::string& placement);

/// The network of `topology` (parse_network's syntax) with its ranks placed by
/// `placement` (checked when the network is built).
NetworkSpec placed_network(const std::string& topology, const std::string& placement);

}  // namespace choreo::cli
