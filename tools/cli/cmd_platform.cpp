// `choreo platform switch|torus`: writes a SimGrid platform and the hostfile that places
// rank i on node-i, ready for `smpirun -platform P.xml -hostfile P.hosts`.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/topo/platform.hpp"
#include "cli/common.hpp"

namespace choreo::cli {
namespace {

// What both subcommands take, as the user typed it; units are parsed in the callback so that
// errors come out as choreo::Error with the accepted spellings.
struct PlatformOptions {
  std::string bandwidth;
  std::string latency;
  std::string speed = "1Gf";
  std::string output;
  std::string hostfile_path;  // empty: beside the output, with extension .hosts
  int nodes = 0;              // switch
  std::string dims;           // torus, "2x3x4"
  bool for_ns3 = false;       // switch
};

void add_link_options(CLI::App& command, PlatformOptions& options) {
  command
      .add_option("--bw", options.bandwidth,
                  "Bandwidth per link and direction, e.g. 1Gbps, 125MBps")
      ->required();
  command.add_option("--lat", options.latency, "Latency per link, e.g. 50us, 1.5ms")->required();
  command.add_option("--speed", options.speed, "Host speed, e.g. 1Gf")->capture_default_str();
  command.add_option("-o,--output", options.output, "Platform XML file to write")->required();
  command.add_option("--hostfile", options.hostfile_path,
                     "Hostfile to write (default: the output path with extension .hosts)");
}

LinkParams parse_link(const PlatformOptions& options) {
  return LinkParams{parse_bandwidth(options.bandwidth), parse_latency(options.latency),
                    parse_speed(options.speed)};
}

std::filesystem::path hostfile_path(const PlatformOptions& options) {
  const std::filesystem::path output = options.output;
  std::filesystem::path hosts = options.hostfile_path;
  if (hosts.empty()) hosts = std::filesystem::path(output).replace_extension(".hosts");
  if (hosts == output) {
    throw Error(
        fmt::format("the hostfile would overwrite the platform '{}': name the platform "
                    "*.xml or pass --hostfile PATH",
                    options.output));
  }
  return hosts;
}

// Writes both files, then reports them as a table or JSON.
void write_platform(const Global& global, const PlatformOptions& options, std::string_view topology,
                    const std::string& xml, int nodes, const LinkParams& link,
                    const std::vector<int>& dims) {
  const std::filesystem::path hosts = hostfile_path(options);
  write_text_file(options.output, xml);
  write_text_file(hosts, hostfile(nodes));

  if (global.json) {
    nlohmann::json report = {{"topology", topology},
                             {"platform", options.output},
                             {"hostfile", hosts.string()},
                             {"nodes", nodes},
                             {"bandwidth_bytes_per_s", link.bandwidth},
                             {"latency_s", link.latency},
                             {"host_speed_flops", link.host_speed}};
    if (!dims.empty()) report["dims"] = dims;
    print_json(report);
    return;
  }
  const std::string shape =
      dims.empty() ? fmt::format("{} ({} nodes)", topology, nodes)
                   : fmt::format("{} {} ({} nodes)", topology, format_torus_dims(dims), nodes);
  fmt::print("{:<10} {}\n", "platform", options.output);
  fmt::print("{:<10} {}\n", "hostfile", hosts.string());
  fmt::print("{:<10} {}\n", "topology", shape);
  fmt::print("{:<10} {} ({}) per link and direction\n", "bandwidth",
             format_bandwidth(link.bandwidth), format_bandwidth_bits(link.bandwidth));
  fmt::print("{:<10} {} per link\n", "latency", format_latency(link.latency));
  fmt::print("{:<10} {}\n", "speed", format_speed(link.host_speed));
}

void add_switch_command(CLI::App& parent, const Global& global) {
  auto options = std::make_shared<PlatformOptions>();
  CLI::App* command = parent.add_subcommand(
      "switch", "Nodes on one non-blocking crossbar switch, each with a full-duplex link");
  command->add_option("--nodes", options->nodes, "Number of nodes")->required();
  command->add_flag("--ns3", options->for_ns3,
                    "Write it for SimGrid's ns-3 model (--cfg=network/model:ns-3): a router and "
                    "explicit routes, since ns-3 cannot simulate a SimGrid <cluster>");
  add_link_options(*command, *options);
  command->callback([options, &global] {
    const SwitchPlatform platform{options->nodes, parse_link(*options), options->for_ns3};
    write_platform(global, *options, "switch", simgrid_xml(platform), node_count(platform),
                   platform.link, {});
  });
}

void add_torus_command(CLI::App& parent, const Global& global) {
  auto options = std::make_shared<PlatformOptions>();
  CLI::App* command = parent.add_subcommand(
      "torus", "An N-dimensional torus with full-duplex links between neighbours");
  command->add_option("--dims", options->dims, "Torus dimensions, e.g. 2x3x4")->required();
  add_link_options(*command, *options);
  command->callback([options, &global] {
    const TorusPlatform platform{parse_torus_dims(options->dims), parse_link(*options)};
    write_platform(global, *options, "torus", simgrid_xml(platform), node_count(platform),
                   platform.link, platform.dims);
  });
}

}  // namespace

void add_platform_command(CLI::App& app, const Global& global) {
  CLI::App* platform =
      app.add_subcommand("platform", "Write a SimGrid platform (XML) and hostfile for smpirun");
  platform->require_subcommand(1);
  add_switch_command(*platform, global);
  add_torus_command(*platform, global);
}

}  // namespace choreo::cli
