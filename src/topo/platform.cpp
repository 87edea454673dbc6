// SimGrid platform XML for the two clusters choreo simulates under SMPI. Both are single
// SimGrid <cluster> elements: SimGrid then computes routes itself (no route table that
// grows as N^2), and the files stay short enough to read.
#include "choreo/topo/platform.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

#include "choreo/core/error.hpp"

namespace choreo {
namespace {

constexpr std::string_view kXmlHeader =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";

void validate(const LinkParams& link) {
  if (!(link.bandwidth > 0) || !std::isfinite(link.bandwidth)) {
    throw Error(fmt::format("platform bandwidth must be positive and finite, got {} bytes/s",
                            link.bandwidth));
  }
  if (!(link.latency >= 0) || !std::isfinite(link.latency)) {
    throw Error(fmt::format("platform latency must be zero or positive and finite, got {} s",
                            link.latency));
  }
  if (!(link.host_speed > 0) || !std::isfinite(link.host_speed)) {
    throw Error(fmt::format("platform host speed must be positive and finite, got {} flop/s",
                            link.host_speed));
  }
}

// The attributes both clusters share. Every link is SPLITDUPLEX: one resource per direction,
// as on a full-duplex Ethernet port or torus cable.
std::string cluster_attributes(int nodes, const LinkParams& link) {
  return fmt::format(
      "prefix=\"node-\" radical=\"0-{}\" suffix=\"\" speed=\"{}\"\n"
      "           bw=\"{}\" lat=\"{}\" sharing_policy=\"SPLITDUPLEX\"",
      nodes - 1, format_speed(link.host_speed), format_bandwidth(link.bandwidth),
      format_latency(link.latency));
}

}  // namespace

void validate(const SwitchPlatform& platform) {
  if (platform.nodes < 1) {
    throw Error(fmt::format("a switch platform needs at least 1 node, got {}", platform.nodes));
  }
  validate(platform.link);
}

void validate(const TorusPlatform& platform) {
  if (platform.dims.empty()) {
    throw Error("a torus platform needs at least one dimension, e.g. 2x3x4");
  }
  long long nodes = 1;
  for (const int dim : platform.dims) {
    if (dim < 1) {
      throw Error(fmt::format("torus {} has a dimension of {}: every dimension must be >= 1",
                              format_torus_dims(platform.dims), dim));
    }
    nodes *= dim;
    if (nodes > std::numeric_limits<int>::max()) {
      throw Error(fmt::format("torus {} has more than {} nodes", format_torus_dims(platform.dims),
                              std::numeric_limits<int>::max()));
    }
  }
  validate(platform.link);
}

int node_count(const SwitchPlatform& platform) { return platform.nodes; }

int node_count(const TorusPlatform& platform) {
  validate(platform);
  int nodes = 1;
  for (const int dim : platform.dims) nodes *= dim;
  return nodes;
}

std::vector<int> parse_torus_dims(std::string_view text) {
  const auto fail = [text](std::string_view why) {
    return Error(fmt::format(
        "torus dimensions '{}' {}: write e.g. 2x3x4 (each a whole number >= 1)", text, why));
  };
  if (text.empty()) throw fail("are empty");
  std::vector<int> dims;
  const char* cursor = text.data();
  const char* const end = text.data() + text.size();
  while (true) {
    int dim = 0;
    const auto [next, status] = std::from_chars(cursor, end, dim);
    if (status == std::errc::result_out_of_range) throw fail("have a dimension that is too large");
    if (status != std::errc{}) throw fail("are not numbers separated by 'x'");
    if (dim < 1) throw fail("have a dimension below 1");
    dims.push_back(dim);
    cursor = next;
    if (cursor == end) break;
    if (*cursor != 'x' || cursor + 1 == end) throw fail("are not numbers separated by 'x'");
    ++cursor;
  }
  return dims;
}

std::string format_torus_dims(const std::vector<int>& dims) {
  return fmt::format("{}", fmt::join(dims, "x"));
}

std::string host_name(int index) { return fmt::format("node-{}", index); }

namespace {
std::string ns3_switch_xml(const SwitchPlatform& platform) {
  std::string hosts, links, routes;
  for (int i = 0; i < platform.nodes; ++i) {
    hosts += fmt::format("    <host id=\"{}\" speed=\"{}\"/>\n", host_name(i),
                         format_speed(platform.link.host_speed));
    links += fmt::format("    <link id=\"link-{}\" bandwidth=\"{}\" latency=\"{}\"/>\n", i,
                         format_bandwidth(platform.link.bandwidth),
                         format_latency(platform.link.latency));
    routes +=
        fmt::format("    <route src=\"{}\" dst=\"switch\"><link_ctn id=\"link-{}\"/></route>\n",
                    host_name(i), i);
  }
  return fmt::format(
      "{}"
      "<!-- choreo: {} nodes on one switch, written for SimGrid's ns-3 model: a router with\n"
      "     one {} ({}) link of {} latency per node; a message crosses two links. -->\n"
      "<platform version=\"4.1\">\n"
      "  <zone id=\"switch-zone\" routing=\"Floyd\">\n{}    <router id=\"switch\"/>\n{}{}"
      "  </zone>\n"
      "</platform>\n",
      kXmlHeader, platform.nodes, format_bandwidth(platform.link.bandwidth),
      format_bandwidth_bits(platform.link.bandwidth), format_latency(platform.link.latency), hosts,
      links, routes);
}
}  // namespace

std::string simgrid_xml(const SwitchPlatform& platform) {
  validate(platform);
  if (platform.for_ns3) return ns3_switch_xml(platform);
  // No bb_bw: SimGrid then creates no backbone link, which is what makes the switch
  // non-blocking. A message uses its sender's up link and its receiver's down link.
  return fmt::format(
      "{}"
      "<!-- choreo: {} nodes on one non-blocking crossbar switch; each node has a private\n"
      "     full-duplex link of {} ({}) and {} latency, and a message crosses two links. -->\n"
      "<platform version=\"4.1\">\n"
      "  <cluster id=\"switch\" {}/>\n"
      "</platform>\n",
      kXmlHeader, platform.nodes, format_bandwidth(platform.link.bandwidth),
      format_bandwidth_bits(platform.link.bandwidth), format_latency(platform.link.latency),
      cluster_attributes(platform.nodes, platform.link));
}

std::string simgrid_xml(const TorusPlatform& platform) {
  const int nodes = node_count(platform);
  // SimGrid gives every dimension, even one of size 1, a link from a node to its successor;
  // two dimensions of size 1 then declare the same self-link twice and SimGrid aborts. A
  // dimension of size 1 adds no neighbours and does not change node numbering, so drop it.
  std::vector<int> effective_dims;
  for (const int dim : platform.dims) {
    if (dim > 1) effective_dims.push_back(dim);
  }
  if (effective_dims.empty()) effective_dims.push_back(1);
  return fmt::format(
      "{}"
      "<!-- choreo: {} torus of {} nodes; each link between neighbours is full duplex with\n"
      "     {} ({}) and {} latency per direction; routes go dimension by dimension. -->\n"
      "<platform version=\"4.1\">\n"
      "  <cluster id=\"torus\" topology=\"TORUS\" topo_parameters=\"{}\"\n"
      "           {}/>\n"
      "</platform>\n",
      kXmlHeader, format_torus_dims(platform.dims), nodes,
      format_bandwidth(platform.link.bandwidth), format_bandwidth_bits(platform.link.bandwidth),
      format_latency(platform.link.latency), fmt::join(effective_dims, ","),
      cluster_attributes(nodes, platform.link));
}

std::string hostfile(int nodes) {
  if (nodes < 1) throw Error(fmt::format("a hostfile needs at least 1 node, got {}", nodes));
  std::string text;
  for (int node = 0; node < nodes; ++node) {
    text += host_name(node);
    text += '\n';
  }
  return text;
}

}  // namespace choreo
