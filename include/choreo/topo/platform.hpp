#pragma once
// SimGrid platforms for SMPI runs: the virtual clusters that `smpirun` simulates the MPI
// executor on. choreo writes them as data (SimGrid 3.32 platform XML, version 4.1) plus a
// hostfile, and parses the SimGrid spellings of bandwidth, latency and host speed.
#include <string>
#include <string_view>
#include <vector>

namespace choreo {

// ---- quantities in SimGrid's spelling --------------------------------------------------
// Parsers return SI base units and throw choreo::Error naming the text and the accepted
// units when the unit is missing or unknown, or the value is negative, infinite or garbage.
// A bare 0 needs no unit; a bandwidth or speed of zero is refused.

/// "1Gbps" (bits/s: 1.25e8), "125MBps" (bytes/s), "1e9Bps", "1GiBps" -> bytes per second.
/// Prefixes k, M, G, T (powers of 1000) and Ki, Mi, Gi, Ti (powers of 1024).
double parse_bandwidth(std::string_view text);
/// "50us", "1.5ms", "100ns", "0s", "2e-6s" -> seconds. Units s, ms, us, ns, ps.
double parse_latency(std::string_view text);
/// "1Gf", "100Mf" -> flop per second. Prefixes as for bandwidth.
double parse_speed(std::string_view text);

/// Bytes per second as SimGrid reads it back: 1.25e8 -> "125MBps".
std::string format_bandwidth(double bytes_per_second);
/// The same rate in bits per second, the way network links are sold: 1.25e8 -> "1Gbps".
std::string format_bandwidth_bits(double bytes_per_second);
/// 5e-5 -> "50us".
std::string format_latency(double seconds);
/// 1e9 -> "1Gf".
std::string format_speed(double flops);

// ---- platforms -------------------------------------------------------------------------

inline constexpr double kDefaultHostSpeed = 1e9;  ///< 1Gf

/// Link parameters shared by both platforms. Every value is per link and per direction:
/// links are full duplex (SimGrid's SPLITDUPLEX), so traffic one way does not slow the other.
struct LinkParams {
  double bandwidth = 0;                   ///< bytes per second, > 0
  double latency = 0;                     ///< seconds, >= 0
  double host_speed = kDefaultHostSpeed;  ///< flop per second, > 0
};

/// A single non-blocking crossbar switch (paper 000's 64-node 1 GbE cluster): every node has
/// its own link to the switch and the switch has no backbone bottleneck, so contention arises
/// only at a node's port. A message crosses two links: the sender's and the receiver's.
struct SwitchPlatform {
  int nodes = 0;
  LinkParams link;
  /// Write the switch as a router with one link per node and explicit routes instead of a
  /// SimGrid <cluster>: SimGrid 3.32's ns-3 network model cannot simulate a cluster (it dies
  /// of SIGFPE). ns-3 links are full duplex point-to-point channels; use this form only with
  /// --cfg=network/model:ns-3 (in the flow model its links would be shared by both directions).
  bool for_ns3 = false;
};

/// A torus with any number of dimensions, e.g. {2, 3, 4} (paper 001's FX10), built with
/// SimGrid's TORUS cluster: one link between neighbours per dimension, routed dimension by
/// dimension. Node i has coordinates with dimension 0 varying fastest.
struct TorusPlatform {
  std::vector<int> dims;
  LinkParams link;
};

/// Throws choreo::Error unless nodes >= 1, bandwidth > 0, latency >= 0, speed > 0.
void validate(const SwitchPlatform& platform);
/// Throws choreo::Error unless there is at least one dimension, each >= 1, the node count
/// fits an int, and the link parameters are valid.
void validate(const TorusPlatform& platform);

int node_count(const SwitchPlatform& platform);
int node_count(const TorusPlatform& platform);

/// "2x3x4" -> {2, 3, 4}; throws choreo::Error on anything else.
std::vector<int> parse_torus_dims(std::string_view text);
/// {2, 3, 4} -> "2x3x4".
std::string format_torus_dims(const std::vector<int>& dims);

/// The name of node `index` in every platform choreo writes: "node-7".
std::string host_name(int index);

/// SimGrid platform XML; validates first.
std::string simgrid_xml(const SwitchPlatform& platform);
std::string simgrid_xml(const TorusPlatform& platform);

/// One host name per line, node-0 first: `smpirun -hostfile` puts rank i on line i.
std::string hostfile(int nodes);

}  // namespace choreo
