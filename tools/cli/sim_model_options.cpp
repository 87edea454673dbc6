#include "cli/sim_model_options.hpp"

#include "choreo/core/error.hpp"
#include "cli/network_options.hpp"
#include "command_line.hpp"

namespace choreo::cli {

namespace {
constexpr const char* kTcpOptions[] = {"--switch-buffer", "--mss", "--initial-window", "--rto"};
}  // namespace

void add_sim_model_options(CLI::App& cmd, SimModelArgs& a) {
  cmd.add_option("--network", a.network,
                 "ideal (no contention, LogGOPSim's LogGP mode), switch[:NODES] (one crossbar), "
                 "torus:AxBxC or mesh:AxBxC (dimension-order routing)");
  cmd.add_option("--sharing", a.sharing,
                 "How messages share a link: serialize (one at a time, FIFO; default), fair "
                 "(equal bandwidth shares) or tcp (switch only: TCP segments into output ports "
                 "with finite buffers that drop, retransmitted after timeouts)");
  add_placement_option(cmd, a.placement);
  cmd.add_option("--link-G", a.link_G,
                 "ns per byte a message holds each link of its route, or that link's bandwidth "
                 "(default: G)")
      ->transform(choreo::tools::per_byte_ns());
  cmd.add_option("--hop-latency", a.hop_latency,
                 "Added per link crossed: ns or e.g. 100ns (default 0)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(0));
  cmd.add_option("--switch-buffer", a.tcp.port_buffer,
                 "tcp: bytes each switch output port holds, e.g. 512KiB (default 256KiB)")
      ->transform(choreo::tools::byte_size())
      ->check(choreo::tools::at_least(1));
  cmd.add_option("--mss", a.tcp.mss, "tcp: payload bytes per segment (default 1448)")
      ->transform(choreo::tools::byte_size())
      ->check(choreo::tools::at_least(1));
  cmd.add_option("--initial-window", a.tcp.initial_window,
                 "tcp: segments a connection sends before its first ACK (default 10, Linux)")
      ->check(choreo::tools::at_least(1));
  cmd.add_option("--rto", a.tcp.rto_min,
                 "tcp: retransmission timeout before backoff: ns or e.g. 200ms (default 200ms, "
                 "Linux's minimum)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(1));
  cmd.add_option("--noise", a.noise,
                 "Noise, repeatable (times in ns, or with a unit: 50us): "
                 "os:period=T,duration=T[,phase=random|same], "
                 "trace:PATH[,phase=random|same] (LogGOPSim's start<TAB>duration format), "
                 "net:period=T,duration=T, seed=N");
  cmd.add_option("--L", a.params.L, "Latency: ns or e.g. 2.5us (default 2500)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(0));
  cmd.add_option("--o", a.params.o, "CPU overhead per message: ns or e.g. 1.5us (default 1500)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(0));
  cmd.add_option("--g", a.params.g, "NIC gap per message: ns or e.g. 1us (default 1000)")
      ->transform(choreo::tools::time_ns())
      ->check(choreo::tools::at_least(0));
  cmd.add_option("--G", a.params.G, "NIC gap per byte: ns/B or a bandwidth, 1Gbps = 8 (default 6)")
      ->transform(choreo::tools::per_byte_ns())
      ->check(choreo::tools::at_least(0));
  cmd.add_option("--O", a.params.O, "CPU overhead per byte: ns/B or a bandwidth (default 0)")
      ->transform(choreo::tools::per_byte_ns())
      ->check(choreo::tools::at_least(0));
  cmd.add_option("--S", a.params.S, "Largest eager message: bytes or e.g. 64K (default 65535)")
      ->transform(choreo::tools::byte_size())
      ->check(choreo::tools::at_least(0));
  cmd.add_flag("--dma-receive", a.dma_receive,
               "The receiving CPU pays o + (s-1)O and the NIC alone moves the bytes (LogGOPSim "
               "keeps the CPU busy for (s-1)G too, so a rank cannot send while it receives)");
}

void note_tcp_options(const CLI::App& cmd, SimModelArgs& a) {
  for (const char* name : kTcpOptions)
    a.tcp_options_given = a.tcp_options_given || cmd.count(name) > 0;
}

sim::SimOptions sim_options_of(const SimModelArgs& a) {
  if (a.tcp_options_given && a.sharing != "tcp")
    throw Error(
        "--switch-buffer, --mss, --initial-window and --rto set the tcp rule's switch: "
        "add --sharing tcp (with --network switch)");
  sim::SimOptions options;
  options.params = a.params;
  options.network = placed_network(a.network, a.placement);
  options.network.sharing = parse_sharing(a.sharing);
  options.network.link_G = a.link_G;
  options.network.hop_latency = a.hop_latency;
  options.network.tcp = a.tcp;
  options.dma_receive = a.dma_receive;
  for (const auto& n : a.noise) sim::add_noise(options.noise, n);
  return options;
}

}  // namespace choreo::cli
