#pragma once
// A machine profile: what `choreo-mpi calibrate` measured on a machine (paper 001 §IV-A:
// ping-pong between a pair of ranks, memcpy with rotating addresses), kept as raw samples,
// with the LogGP and Hockney parameters fitted from them. Its JSON spelling is
// "choreo.profile/1" (docs/calibration.md). No MPI here: the tool measures, this keeps.
//
// The LogGP measurement follows Hoefler, Lichei and Rehm (Netgauge's loggp pattern), with
// every time taken on one rank so that no clocks need to agree:
//   - the ping-pong round trip PRTT(1, 0, s) = 2 (L + o_s + o_r + (s-1)G);
//   - a burst PRTT(n, 0, s): n back-to-back s-byte messages, then one s-byte reply; the
//     sender's gap binds, so PRTT(n, 0, s) = PRTT(1, 0, s) + (n-1) (g + (s-1)G);
//   - the send overhead o_s: time inside MPI_Send of a small message sent while the channel
//     is idle (the sender waits `delay` after each);
//   - the receive overhead o_r: time inside MPI_Recv of a small message that has already
//     arrived (the receiver waits `wait` before receiving).
// LogGP's single o is (o_s + o_r) / 2, so that L + 2o + (s-1)G is the one-way time.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace choreo {

/// Repeated measurements of one operation on `bytes` bytes.
struct SizeSamples {
  std::int64_t bytes = 0;
  std::int64_t batch = 1;       ///< operations timed together and averaged into each sample
  std::vector<double> seconds;  ///< raw: one per repetition (seconds per operation)
  double median() const;        ///< 0 when there are no samples

  friend bool operator==(const SizeSamples&, const SizeSamples&) = default;
};

struct LogGPFit {
  double L = 0, o = 0, g = 0;  ///< seconds
  double G = 0;                ///< seconds per byte
  friend bool operator==(const LogGPFit&, const LogGPFit&) = default;
};

/// t(M) = alpha + beta * M.
struct HockneyFit {
  double alpha = 0;  ///< seconds
  double beta = 0;   ///< seconds per byte
  double at(double bytes) const { return alpha + beta * bytes; }
  friend bool operator==(const HockneyFit&, const HockneyFit&) = default;
};

/// A 95% confidence interval.
struct Interval {
  double low = 0, high = 0;
  friend bool operator==(const Interval&, const Interval&) = default;
};

/// 95% confidence intervals of the fitted parameters (fit_intervals in profile_quality.hpp).
struct FitIntervals {
  Interval L, o, g, G;   ///< LogGP
  Interval alpha, beta;  ///< Hockney (ping-pong)
  int resamples = 0;     ///< bootstrap resamples behind them
  friend bool operator==(const FitIntervals&, const FitIntervals&) = default;
};

/// Where the calibration ran and how busy the machine was: a profile from one loaded node
/// says so wherever it is used.
struct MeasuredOn {
  double load_start = 0, load_end = 0;  ///< rank 0's 1-minute load average before and after
  int cpus = 0;  ///< processing units rank 0 may run on (hwloc; online CPUs without it)
  std::vector<std::string> hosts;  ///< each rank's node (MPI_Get_processor_name)
  bool empty() const { return hosts.empty(); }
  int nodes() const;  ///< distinct hosts
  /// Whether the ranks `a` and `b` ran on one node (shared memory, not the network).
  bool same_node(int a, int b) const;
  friend bool operator==(const MeasuredOn&, const MeasuredOn&) = default;
};

/// PRTT(n, 0, s) for several s: a burst of n back-to-back messages and one reply; each
/// sample is the whole round (first send to reply received), not per message.
struct BurstSamples {
  int messages = 16;               ///< n
  std::vector<SizeSamples> sizes;  ///< ascending; every size also in the ping-pong
  friend bool operator==(const BurstSamples&, const BurstSamples&) = default;
};

/// CPU time inside MPI_Send and MPI_Recv of small messages, per call: rounds of n
/// messages of `send.bytes` (= `recv.bytes`) bytes.
struct OverheadSamples {
  int messages = 16;  ///< n per round
  double delay = 0;   ///< busy wait after each send, longer than a round trip and the gap
  double wait = 0;    ///< busy wait before the receives, longer than the n messages take
  SizeSamples send;   ///< o_s: seconds inside one MPI_Send
  SizeSamples recv;   ///< o_r: seconds inside one MPI_Recv of an arrived message
  friend bool operator==(const OverheadSamples&, const OverheadSamples&) = default;
};

/// Beyond the paper: the two tables again, timed the way a collective call meets them, with
/// every rank of the calibration run at work at once, after a barrier, on buffers freshly
/// written (as an application's are), a sample being the slowest rank's time:
///   - exchange: each rank sends `bytes` to rank + 1 (mod P) and receives as many from rank - 1,
///     one step of a ring and, on one node, the load of every allgather step: every core copies
///     at once, which a ping-pong with one message in flight never sees;
///   - memcpy: each rank copies `bytes` it has just written, found in cache while it fits, as
///     a collective's copies find the blocks it has just received (the paper's memcpy defeats
///     the cache on purpose).
/// Optional: profiles written before them have neither.
struct CollectiveSamples {
  int ranks = 0;                      ///< ranks that took part: the calibration run's
  std::vector<SizeSamples> exchange;  ///< ascending; one exchange per sample (batch 1)
  std::vector<SizeSamples> memcpy;    ///< ascending; one copy per sample (batch 1)
  bool empty() const { return exchange.empty(); }
  friend bool operator==(const CollectiveSamples&, const CollectiveSamples&) = default;
};

inline constexpr const char* kProfileFormat = "choreo.profile/1";

struct MachineProfile {
  std::string format = kProfileFormat;
  std::string host, mpi_library, created;  ///< created: ISO 8601 UTC, "2025-01-31T12:00:00Z"
  int ranks = 0;                           ///< ranks of the calibration run
  std::vector<std::pair<int, int>> pairs;  ///< ping-pong pairs measured (client, server)
  std::int64_t cache_bytes = 0;            ///< last-level cache the memcpy had to defeat
  std::int64_t memcpy_buffer_bytes = 0;    ///< the buffer its addresses rotated through
  std::vector<SizeSamples> pingpong;       ///< ONE-WAY time (round trip / 2), ascending sizes
  std::vector<SizeSamples> memcpy;         ///< time of one memcpy of `bytes`, ascending sizes
  BurstSamples burst;                      ///< for g and G
  OverheadSamples overhead;                ///< for o
  CollectiveSamples collective;            ///< timed as a collective sees it; empty in old profiles
  LogGPFit loggp;                          ///< fit_loggp(pingpong, burst, overhead)
  HockneyFit hockney;                      ///< fit_hockney(pingpong)
  HockneyFit memcpy_hockney;               ///< fit_hockney(memcpy)
  std::optional<FitIntervals> ci95;        ///< the fits' 95% intervals; none in old profiles
  MeasuredOn measured_on;                  ///< load and layout; empty in old profiles

  friend bool operator==(const MachineProfile&, const MachineProfile&) = default;
};

/// JSON text of a profile: fits and metadata first, then one line per size.
std::string profile_to_json(const MachineProfile& profile);
/// Parses and validates (see read_profile); messages name the field but not the file.
MachineProfile profile_from_json(const std::string& text);

/// Reads and validates a profile: format, every field present and of its type, sizes
/// positive and strictly ascending, samples non-empty, finite and >= 0, burst sizes among
/// the ping-pong sizes, pairs inside `ranks`, and a "collective" part (optional) of at most
/// `ranks` ranks with both tables. Throws choreo::Error with one line
/// naming the file, the field and the fix.
MachineProfile read_profile(const std::string& path);
void write_profile(const MachineProfile& profile, const std::string& path);

/// Hockney's alpha and beta by least squares on the medians, weighted by 1/median^2: the
/// relative error is minimised, so 1-byte and 64-MiB points count alike (unweighted, the
/// largest sizes would decide alpha too). Parameters are clamped at 0. Needs two sizes.
HockneyFit fit_hockney(const std::vector<SizeSamples>& samples);

/// LogGP from the medians, with T(s) the one-way ping-pong time:
///   gap(s) = (PRTT(n,0,s) - 2 T(s)) / (n-1) for every burst size s;
///   G = median of (gap(s) - gap(s0)) / (s - s0) over the burst sizes s >= 64 KiB (all
///       sizes above s0 if none is that large), s0 the smallest burst size;
///   g = gap(s0) - (s0-1) G;
///   o = (o_s + o_r) / 2;
///   L = T(smin) - 2o - (smin-1) G at the smallest ping-pong size smin.
/// Each is clamped at 0. Throws choreo::Error if a needed size or sample is missing.
LogGPFit fit_loggp(const std::vector<SizeSamples>& pingpong, const BurstSamples& burst,
                   const OverheadSamples& overhead);

/// Fills loggp, hockney and memcpy_hockney from the samples.
void fit_profile(MachineProfile& profile);

/// The distribution-free 95% confidence interval of the median: order statistics x_(j) and
/// x_(k) with j the largest index such that P(Binomial(n, 1/2) < j) <= 2.5% and
/// k = n + 1 - j (Le Boudec, Performance Evaluation, Thm. 2.1). Needs n >= 6; with fewer
/// samples the interval is infinite.
Interval median_ci95(std::vector<double> samples);

/// (high - low) / 2 of median_ci95, relative to the median: the calibration's stopping rule
/// compares it with --rel-ci. Infinite below 6 samples or with a median of 0.
double relative_ci_half_width(const std::vector<double>& samples);

}  // namespace choreo
