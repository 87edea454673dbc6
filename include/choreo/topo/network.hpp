#pragma once
// Networks for choreo sim: where messages contend. `ideal` has no contention (LogGOPSim's
// LogGP mode). `switch` is one crossbar: every node has an injection link to it and an
// ejection link from it. `torus:AxBxC` and `mesh:AxBxC` (any number of dimensions) have a
// link per direction between neighbours, dimension-order routing the short way round, and
// a node's injection and ejection links. Ranks sit on nodes by a placement; ranks of one
// node share its links, and messages between them use none. docs/sim-model.md has the rules.
#include <cstdint>
#include <string>
#include <vector>

namespace choreo {

/// The `tcp` sharing rule's switch and TCP (src/sim/tcp_switch.hpp; docs/sim-model.md gives
/// the sources of the defaults).
struct TcpSpec {
  /// Bytes each switch output port can hold, the segment being sent included: what one port
  /// of a commodity 1 GbE switch can take of its shared packet memory (1-4 MB for 24-48
  /// ports). docs/sim-model.md shows how results move with it.
  std::int64_t port_buffer = 256 * 1024;
  std::int64_t mss = 1448;  ///< payload bytes per segment: 1500 B MTU less IP, TCP, timestamps
  std::int64_t initial_window = 10;        ///< segments (Linux since 2.6.39, RFC 6928)
  std::int64_t rto_min = 200'000'000;      ///< ns: Linux's TCP_RTO_MIN
  std::int64_t rto_max = 120'000'000'000;  ///< ns: Linux's TCP_RTO_MAX
};

struct NetworkSpec {
  enum class Kind { Ideal, Switch, Torus, Mesh };
  Kind kind = Kind::Ideal;
  std::vector<int> dims;  ///< torus and mesh
  int nodes = 0;          ///< switch: 0 means one node per rank
  /// How a message holds a link: for message bytes x link_G ns (serialize). Negative means
  /// the LogGOPS G.
  double link_G = -1;
  std::int64_t hop_latency = 0;  ///< ns added per link crossed, beyond the LogGOPS L
  /// serialize: a message waits for its whole route and holds it alone; fair: links share
  /// their bandwidth equally among the messages crossing them; tcp (switch only): messages
  /// are TCP segments, and a full output-port buffer drops them (TcpSpec).
  enum class Sharing { Serialize, Fair, Tcp };
  Sharing sharing = Sharing::Serialize;
  std::string placement = "linear";  ///< linear, round-robin, random:SEED, file:PATH
  TcpSpec tcp;                       ///< the tcp sharing rule's parameters
};

/// "ideal", "switch", "switch:NODES", "torus:4x4x4", "mesh:8x8". Throws choreo::Error
/// naming the accepted forms.
NetworkSpec parse_network(const std::string& text);
/// "serialize", "fair" or "tcp".
NetworkSpec::Sharing parse_sharing(const std::string& text);

/// Throws choreo::Error unless `placement` is one of place_ranks' spellings (a file is read
/// only when ranks are placed).
void check_placement(const std::string& placement);

/// Node of each rank. linear: rank r on node r / ceil(ranks / nodes); round-robin: r % nodes;
/// random:SEED: a seeded shuffle of linear; file:PATH: one node number per line, per rank.
std::vector<int> place_ranks(int ranks, int nodes, const std::string& placement);

/// Load of one link over a simulation.
struct LinkLoad {
  std::string name;          ///< "node 3 up", "node 5 +x", ...
  std::int64_t busy_ns = 0;  ///< time it carried data
  std::int64_t messages = 0;
};

}  // namespace choreo
