#pragma once
// One irregular exchange (an MPI_Alltoallv's pattern) planned for execution: every candidate
// schedule of paper 000 and beyond, predicted by the model, the fastest kept, and each rank's
// part of it in the form an MPI runner executes: the order it posts its receives in and its
// sends, each with the earliest time (after the exchange's start on that rank) it may begin.
//
// This is what NeighborExchange and the PMPI interposition library (libchoreo_pmpi.so) run:
// one rank plans (it needs the whole pattern), the others receive only their own part, so
// every rank keeps O(its own messages) once the plan is made.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/core/pattern.hpp"
#include "choreo/model/profile.hpp"
#include "choreo/sim/engine.hpp"
#include "choreo/topo/network.hpp"

namespace choreo {

/// Which send order an exchange uses. All give the same received data.
enum class ExchangeAlgorithm {
  Auto,          ///< the candidate the model predicts fastest (plan_exchange)
  Direct,        ///< every send at once, in Thakur's ring order: what MPI_Alltoallv does
  Ring,          ///< Thakur's ring order, no delays (paper 000 sec. 3.2)
  Delay,         ///< delay insertion (Algorithms 1 and 2); delay slots wait delta
  Optimal,       ///< contention-free, fewest slots (degree bound); delay slots wait delta
  OptimalPaced,  ///< Optimal, time-slotted: the send of slot t waits until t x delta
};

/// "auto", "direct", "ring", "delay", "optimal", "optimal-paced"; throws choreo::Error naming
/// the choices otherwise.
ExchangeAlgorithm exchange_algorithm_from_string(std::string_view name);
std::string_view to_string(ExchangeAlgorithm algorithm);

/// What the model knows of the machine: the LogGOPS endpoint and the network the ranks sit on.
/// A value-initialised model is defaults(): LogGOPSim's LogGOPS (L 2500, o 1500, g 1000 ns,
/// G 6 ns/B, O 0, S 65535 B), whose slot for paper 000's 63 KiB messages, I(k) = 388.6 us, is
/// within 3% of the 400 us the paper calibrated on its 1 GbE cluster; one node per rank on a
/// switch with fair sharing; NICs that take arriving bytes by DMA (docs/scheduling.md).
struct ExchangeModel {
  sim::LogGOPS params;
  NetworkSpec network = [] {
    NetworkSpec fair_switch;  // one node per rank
    fair_switch.kind = NetworkSpec::Kind::Switch;
    fair_switch.sharing = NetworkSpec::Sharing::Fair;
    return fair_switch;
  }();
  /// sim::SimOptions::dma_receive: a receiving CPU pays o, not the message's (s-1)G, so a
  /// rank can send while it receives (LogGOPSim's rule, false, halves such ranks' speed).
  bool dma_receive = true;
  /// How much simulating may cost: candidates are simulated only when all of them (and Direct)
  /// fit, in units of about 0.06 us (see simulation_work in src/sched/exchange_estimate.hpp:
  /// 16 a message for a slotted plan, E + sum of squared degrees for Direct and Ring). Beyond
  /// it every candidate is predicted by paper 000's model (docs/scheduling.md). The default,
  /// 2^20, simulates paper 000's 64-rank patterns (plan_exchange takes 2.6-10 ms on its
  /// scale-free ones) and predicts 1024-rank scale-free ones (m = 28) by the model.
  std::int64_t simulation_budget = std::int64_t{1} << 20;
  /// The model above (documented with its source in docs/scheduling.md).
  static ExchangeModel defaults();
  /// LogGP from a calibrated profile (choreo-mpi calibrate), seconds to ns, O = 0 and
  /// LogGOPSim's S, on the default network. Throws choreo::Error for a profile without a fit.
  static ExchangeModel from_profile(const MachineProfile& profile);
  /// The length of one slot for messages of `bytes`: paper 000's I(k) = o + (k-1)G, one
  /// message's time through a port, the delta of delay slots and paced slots. Never shorter
  /// than choreo sim's spacing of two sends, max(o + (k-1)O, g + (k-1)G): it is
  /// max(o, g) + (k-1) max(G, O), the paper's I(k) whenever o >= g and O <= G.
  std::int64_t slot_ns(std::int64_t bytes) const;
};

/// A send of one rank: to `peer`, not before `not_before_ns` after the rank started the
/// exchange, and not before the rank's previous send started.
struct ExchangeSend {
  int peer = 0;
  std::int64_t not_before_ns = 0;
  friend bool operator==(const ExchangeSend&, const ExchangeSend&) = default;
};

/// One rank's part of a planned exchange. Messages to itself are not in it (a local copy).
struct RankExchange {
  std::vector<int> receive_from;  ///< sources, in the order to post the receives
  std::vector<ExchangeSend> sends;
  friend bool operator==(const RankExchange&, const RankExchange&) = default;
};

/// One candidate as the model saw it.
struct ExchangeCandidate {
  ExchangeAlgorithm algorithm = ExchangeAlgorithm::Direct;
  std::int64_t predicted_ns = 0;  ///< the model's makespan
  int slots = 0;                  ///< slotted plans: length of the longest rank's plan
  int delays = 0;                 ///< slotted plans: delay slots before a rank's last send
  std::int64_t delta_ns = 0;      ///< delay and paced slot length (0 when unused)
  /// True: predicted by choreo sim; false: by paper 000's model, beyond the simulation budget.
  bool simulated = true;
};

struct ExchangePlan {
  ExchangeAlgorithm algorithm = ExchangeAlgorithm::Direct;  ///< the one kept
  std::int64_t delta_ns = 0;
  std::int64_t predicted_ns = 0;
  /// The model's prediction for Direct, the stand-in for MPI_Alltoallv: a caller keeps MPI's
  /// own call when predicted_ns is not clearly below it.
  std::int64_t direct_ns = 0;
  int degree_bound = 0;                       ///< largest in- or out-degree
  std::vector<ExchangeCandidate> candidates;  ///< every one tried (one unless Auto)
  std::vector<RankExchange> ranks;            ///< per rank, ranks.size() == pattern.ranks
};

/// Plans `pattern` with `algorithm` (Auto: every candidate, the fastest predicted kept;
/// ties go to the one with fewer delays, then to the simpler, in the enumeration's order).
/// Candidates are predicted by choreo sim on the model (Ring runs Direct's program, each
/// rank's sends in ring order with none held back, and gets its prediction), or, where
/// simulating them all would pass model.simulation_budget, by paper 000's model with
/// receivers taking one message at a time (docs/scheduling.md). Auto tries delay insertion
/// only where it is cheap (degree x ranks^2 up to 2^25). delta_ns = model.slot_ns(largest
/// message). Deterministic. Validates the pattern (throws choreo::Error): messages to self are
/// an error, as in validate(), and so is a pair listed twice (merge them).
ExchangePlan plan_exchange(const Pattern& pattern, const ExchangeModel& model,
                           ExchangeAlgorithm algorithm = ExchangeAlgorithm::Auto);

}  // namespace choreo
