// Where a selection stretches its profile (extrapolation_notes in
// include/choreo/select/select.hpp): a prediction is only as good as what was measured, and `choreo
// select` says where it goes beyond it.
#include <fmt/format.h>

#include <algorithm>

#include "../core/human.hpp"
#include "choreo/coll/generators.hpp"
#include "choreo/core/error.hpp"
#include "choreo/select/profile_quality.hpp"
#include "choreo/select/select.hpp"

namespace choreo::select {
namespace {

/// The largest message any candidate sends at the largest size asked for.
std::int64_t largest_message(const Request& request) {
  std::int64_t largest = 0;
  const std::vector<std::string> names =
      request.only.empty() ? algorithms_of(request.collective) : request.only;
  for (const std::string& name : names) {
    try {
      const auto s = coll::generate(fmt::format("{}:{}:ranks={}:bytes={}", request.collective, name,
                                                request.ranks, request.sizes.back()));
      for (OpIndex op = 0; op < s.op_count(); ++op)
        if (s.kind(op) == OpKind::Send) largest = std::max(largest, s.amount(op));
    } catch (const Error&) {  // an algorithm that cannot run here sends nothing
    }
  }
  return largest;
}

std::string network_name(const NetworkSpec& n) {
  switch (n.kind) {
    case NetworkSpec::Kind::Switch:
      return "a switch";
    case NetworkSpec::Kind::Torus:
    case NetworkSpec::Kind::Mesh: {
      int nodes = 1;
      for (int d : n.dims) nodes *= d;
      return fmt::format("a {} of {} nodes", n.kind == NetworkSpec::Kind::Torus ? "torus" : "mesh",
                         nodes);
    }
    default:
      return "an ideal network";
  }
}

}  // namespace

std::vector<std::string> extrapolation_notes(const MachineProfile& profile,
                                             const Request& request) {
  std::vector<std::string> notes;
  const bool collective = request.tables.source == "collective";
  const std::vector<SizeSamples>& table =
      collective ? profile.collective.exchange : profile.pingpong;
  if (!table.empty() && !request.sizes.empty()) {
    const std::int64_t measured = table.back().bytes, needed = largest_message(request);
    constexpr std::int64_t kCalibrateLimit = std::int64_t{1} << 30;  // calibrate's --max-bytes
    if (needed > measured)
      notes.push_back(fmt::format(
          "messages up to {} are predicted, the profile measured up to {}: beyond it the times "
          "are extrapolated from its last two sizes ({})",
          human_bytes(static_cast<double>(needed)), human_bytes(static_cast<double>(measured)),
          needed <= kCalibrateLimit ? fmt::format("calibrate with --max-bytes {} to measure them",
                                                  human_bytes(static_cast<double>(needed)))
                                    : std::string("calibrate measures up to 1 GiB")));
  }
  const int measured_ranks = collective ? profile.collective.ranks : 2;
  if (request.ranks > measured_ranks)
    notes.push_back(fmt::format(
        "{} ranks are predicted from {} measured {}: contention among more ranks comes only from "
        "the topology model",
        request.ranks, measured_ranks, collective ? "exchanging at once" : "(one ping-pong pair)"));
  const MeasuredOn& on = profile.measured_on;
  const bool network = request.network.kind != NetworkSpec::Kind::Ideal;
  const auto [a, b] = profile.pairs.empty() ? std::pair{0, 1} : profile.pairs.front();
  if (on.empty())
    notes.push_back(
        "the profile does not say where it was measured (it predates measured_on): calibrate "
        "again to know whether its times are a network's or shared memory's");
  else if (network && on.same_node(a, b))
    notes.push_back(fmt::format(
        "the profile's pair shared node {} (shared memory, not a network); its times are "
        "stretched here onto the links of {}: calibrate with one rank per node for a network",
        on.hosts[static_cast<std::size_t>(a)], network_name(request.network)));
  if (!on.empty() && on.cpus > 0 && on.load_start >= on.cpus)
    notes.push_back(fmt::format(
        "the profile was measured under load (load average {:.1f} on {} CPUs): its times include "
        "other processes' work",
        on.load_start, on.cpus));
  for (const std::string& problem : fit_problems(profile))
    notes.push_back("the profile's fit is not physical: " + problem);
  return notes;
}

}  // namespace choreo::select
