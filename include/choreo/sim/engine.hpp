#pragma once
// choreo's discrete-event simulator: executes a schedule under the LogGOPS model with
// LogGOPSim's semantics (docs/sim-model.md gives every rule and a worked example).
#include <cstdint>
#include <vector>

#include "choreo/core/compact_schedule.hpp"
#include "choreo/core/shaped_schedule.hpp"
#include "choreo/sim/noise.hpp"
#include "choreo/topo/network.hpp"

namespace choreo::sim {

/// LogGOPS parameters in nanoseconds (G and O per byte; S in bytes). Defaults are
/// LogGOPSim's.
struct LogGOPS {
  std::int64_t L = 2500;   ///< latency
  std::int64_t o = 1500;   ///< CPU overhead per message
  std::int64_t g = 1000;   ///< NIC gap per message
  double G = 6;            ///< NIC gap per byte
  double O = 0;            ///< CPU overhead per byte
  std::int64_t S = 65535;  ///< largest eager message; larger ones use rendezvous
};

struct SimOptions {
  LogGOPS params;
  NetworkSpec network;
  NoiseSpec noise;
  /// Keep every op's start and end time and every send's matched receive (20 B an op).
  bool record_ops = false;
  /// LogGOPSim charges a receiving CPU o + max((s-1)O, (s-1)G): the CPU is busy while the
  /// bytes arrive, so a rank cannot start a send while it receives. A NIC with DMA moves
  /// the bytes by itself: with this set, the receiving CPU pays o + (s-1)O and only the
  /// receive NIC pays g + (s-1)G.
  bool dma_receive = false;
};

/// What the tcp sharing rule's switch and senders did (all zero under other rules).
struct TcpStats {
  std::uint64_t segments = 0;          ///< segments sent, retransmissions included
  std::uint64_t drops = 0;             ///< segments a full output-port buffer dropped
  std::uint64_t retransmissions = 0;   ///< segments sent again
  std::uint64_t timeouts = 0;          ///< retransmission timeouts
  std::uint64_t fast_retransmits = 0;  ///< losses found by three duplicate ACKs
  std::int64_t fullest_port = 0;       ///< most bytes an output port held
};

/// SimResult::matched_receive of an op that is not a matched send.
inline constexpr OpIndex kUnmatched = 0xFFFFFFFFu;

struct SimResult {
  std::int64_t makespan = 0;                   ///< ns: the latest rank's finish time
  std::vector<std::int64_t> finish;            ///< ns, per rank: when its CPU is last free
  std::vector<std::int64_t> op_start, op_end;  ///< per op, when record_ops
  /// Per op, when record_ops: for a send, the receive its message matched (the simulator's own
  /// matching, wildcards and arrival order included); kUnmatched for every other op.
  std::vector<OpIndex> matched_receive;
  std::uint64_t events = 0;        ///< events: ops and message arrivals (LogGOPSim's count)
  std::uint64_t retries = 0;       ///< events put back because a CPU or NIC was busy
  double wall_seconds = 0;         ///< time the simulation took
  std::size_t schedule_bytes = 0;  ///< memory of the compact schedule
  std::size_t state_bytes = 0;     ///< memory of the simulator's own state at its peak
  std::vector<LinkLoad> links;     ///< links that carried data, busiest first (not ideal)
  TcpStats tcp;                    ///< the tcp sharing rule's drops and retransmissions
};

/// Runs the schedule to completion. Throws choreo::Error if ops are left that can never
/// run (a deadlock, or a message nobody receives): validate schedules first.
SimResult simulate(const CompactSchedule& schedule, const SimOptions& options);
/// The same for a schedule of shared rank shapes (what `choreo sim --generate` builds).
SimResult simulate(const ShapedSchedule& schedule, const SimOptions& options);

}  // namespace choreo::sim
