#pragma once
// Noise for choreo sim, seeded and reproducible.
//  - OS detours steal a rank's CPU: periodic (period, duration; a random phase per rank, or
//    all ranks in phase) or from a trace in LogGOPSim's format (one "start<TAB>duration" line
//    per detour, nanoseconds; each rank starts at a random point of it, or all at one).
//    CPU work that meets a detour is stretched by the detour's length.
//  - Network delays: per sending rank, delay events arrive as a Poisson process (mean gap
//    `period`), each lasting `duration`; a message sent during one leaves when it ends.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace choreo::sim {

struct Detour {
  std::int64_t start = 0, duration = 0;
};

struct NoiseSpec {
  enum class Os { None, Periodic, Trace } os = Os::None;
  std::int64_t os_period = 0, os_duration = 0;
  bool in_phase = false;          ///< all ranks' detours at the same times
  std::int64_t fixed_phase = -1;  ///< with in_phase: that phase (ns), or -1 for a random one
  std::vector<Detour> trace;
  std::int64_t net_period = 0, net_duration = 0;  ///< 0: no network noise
  std::uint64_t seed = 1;
};

/// Adds one `--noise` spelling to spec:
///   (every time: whole nanoseconds, or with a unit, "50us", "1ms")
///   os:period=NS,duration=NS[,phase=random|same|NS]
///   trace:PATH[,phase=random|same|NS]
///   net:period=NS,duration=NS
///   seed=N
/// Throws choreo::Error naming the accepted forms.
void add_noise(NoiseSpec& spec, const std::string& text);

/// Reads a LogGOPSim noise trace ("start<TAB>duration" in ns per line, '#' comments).
std::vector<Detour> read_noise_trace(const std::string& text);

/// The noise of one simulation: answers when CPU work ends and when a message may leave.
class Noise {
 public:
  Noise(const NoiseSpec& spec, int ranks);
  /// When `work` ns of CPU time started at `start` on `rank` end, detours included.
  std::int64_t cpu_end(int rank, std::int64_t start, std::int64_t work) const;
  /// When a message `rank` sends at `time` may enter the network. Must be asked with
  /// non-decreasing times per rank (the simulator does).
  std::int64_t network_ready(int rank, std::int64_t time);
  bool quiet() const { return spec_.os == NoiseSpec::Os::None && spec_.net_period == 0; }

 private:
  std::int64_t periodic_end(int rank, std::int64_t start, std::int64_t work) const;
  std::int64_t trace_end(int rank, std::int64_t start, std::int64_t work) const;

  NoiseSpec spec_;
  std::vector<std::int64_t> phase_;  ///< per rank: periodic phase or trace offset
  std::int64_t trace_length_ = 0;
  struct Poisson {
    std::uint64_t state = 0;
    std::int64_t start = -1, end = -1;  ///< the current or next delay event
  };
  std::vector<Poisson> net_;
};

}  // namespace choreo::sim
