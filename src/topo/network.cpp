#include "choreo/topo/network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>
#include <random>
#include <sstream>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"

namespace choreo {
namespace {

int parse_positive(std::string_view text, std::string_view what) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1)
    throw Error(fmt::format("network: {} '{}' must be a positive integer", what, text));
  return value;
}

std::vector<int> parse_dims(std::string_view text) {
  std::vector<int> dims;
  while (true) {
    auto x = text.find('x');
    dims.push_back(parse_positive(text.substr(0, x), "dimension"));
    if (x == std::string_view::npos) break;
    text.remove_prefix(x + 1);
  }
  return dims;
}

}  // namespace

NetworkSpec parse_network(const std::string& text) {
  NetworkSpec spec;
  std::string_view kind = text, rest;
  if (auto colon = text.find(':'); colon != std::string::npos) {
    kind = std::string_view(text).substr(0, colon);
    rest = std::string_view(text).substr(colon + 1);
  }
  if (kind == "ideal" && rest.empty()) return spec;
  if (kind == "switch") {
    spec.kind = NetworkSpec::Kind::Switch;
    if (!rest.empty()) spec.nodes = parse_positive(rest, "node count");
    return spec;
  }
  if ((kind == "torus" || kind == "mesh") && !rest.empty()) {
    spec.kind = kind == "torus" ? NetworkSpec::Kind::Torus : NetworkSpec::Kind::Mesh;
    spec.dims = parse_dims(rest);
    return spec;
  }
  throw Error(
      fmt::format("unknown network '{}'; use ideal, switch, switch:NODES, torus:AxBxC or "
                  "mesh:AxBxC (any number of dimensions)",
                  text));
}

NetworkSpec::Sharing parse_sharing(const std::string& text) {
  if (text == "serialize") return NetworkSpec::Sharing::Serialize;
  if (text == "fair") return NetworkSpec::Sharing::Fair;
  if (text == "tcp") return NetworkSpec::Sharing::Tcp;
  throw Error(fmt::format("unknown sharing '{}'; use serialize, fair or tcp", text));
}

namespace {
/// The seed of "random:SEED"; throws unless SEED is a non-negative integer.
std::uint64_t placement_seed(const std::string& placement) {
  std::uint64_t seed = 0;
  std::string_view digits = std::string_view(placement).substr(7);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seed);
  if (ec != std::errc() || end != digits.data() + digits.size())
    throw Error(fmt::format("placement '{}': the seed must be a non-negative integer", placement));
  return seed;
}
}  // namespace

void check_placement(const std::string& placement) {
  if (placement == "linear" || placement == "round-robin") return;
  if (placement.starts_with("random:")) {
    placement_seed(placement);
    return;
  }
  // Read now, though it is read again when the ranks are placed: a file the user names must
  // exist even where the network makes placement moot (one node, an ideal network).
  if (placement.starts_with("file:")) {
    static_cast<void>(read_text_file(placement.substr(5)));
    return;
  }
  throw Error(fmt::format(
      "unknown placement '{}'; use linear, round-robin, random:SEED or file:PATH", placement));
}

std::vector<int> place_ranks(int ranks, int nodes, const std::string& placement) {
  if (ranks < 1 || nodes < 1) throw Error("placement needs at least one rank and one node");
  check_placement(placement);
  std::vector<int> node(static_cast<std::size_t>(ranks));
  const int per_node = (ranks + nodes - 1) / nodes;
  auto linear = [&] {
    for (int r = 0; r < ranks; ++r) node[static_cast<std::size_t>(r)] = r / per_node;
  };
  if (placement == "linear") {
    linear();
  } else if (placement == "round-robin") {
    for (int r = 0; r < ranks; ++r) node[static_cast<std::size_t>(r)] = r % nodes;
  } else if (placement.starts_with("random:")) {
    linear();
    std::mt19937_64 rng(placement_seed(placement));
    std::shuffle(node.begin(), node.end(), rng);
  } else {
    const std::string path = placement.substr(5);
    std::istringstream in(read_text_file(path));
    for (int r = 0; r < ranks; ++r)
      if (!(in >> node[static_cast<std::size_t>(r)]))
        throw Error(fmt::format("placement file {} has fewer than {} node numbers (one per rank)",
                                path, ranks));
  }
  for (int r = 0; r < ranks; ++r)
    if (node[static_cast<std::size_t>(r)] < 0 || node[static_cast<std::size_t>(r)] >= nodes)
      throw Error(fmt::format("placement puts rank {} on node {}, but the network has nodes 0..{}",
                              r, node[static_cast<std::size_t>(r)], nodes - 1));
  return node;
}

}  // namespace choreo
