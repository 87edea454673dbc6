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

namespace choreo::sim {

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
  /// their bandwidth equally among the messages crossing them.
  enum class Sharing { Serialize, Fair };
  Sharing sharing = Sharing::Serialize;
  std::string placement = "linear";  ///< linear, round-robin, random:SEED, file:PATH
};

/// "ideal", "switch", "switch:NODES", "torus:4x4x4", "mesh:8x8". Throws choreo::Error
/// naming the accepted forms.
NetworkSpec parse_network(const std::string& text);
/// "serialize" or "fair".
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

}  // namespace choreo::sim
