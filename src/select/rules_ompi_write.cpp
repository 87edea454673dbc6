// Decisions -> Open MPI coll_tuned rules, in the classic format (Open MPI 4.1 and 5.0) and
// the version 2 format (Open MPI 5.0); what coll_tuned compares is in rules_table.hpp.
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/select/rules_export.hpp"
#include "rules_table.hpp"

namespace choreo::detail::rules {
namespace {

/// The message size coll_tuned compares for `bytes` (rules_table.hpp).
std::int64_t ompi_message_size(const Checked& c, std::int64_t bytes) {
  if (!c.collective->ompi_times_ranks) return bytes;
  const std::int64_t ranks = c.decision->comm_size;
  if (bytes > kInt64Max / ranks)
    throw Error(fmt::format("{}: {} bytes x {} ranks overflows a 64-bit message size",
                            label(*c.decision), bytes, ranks));
  return bytes * ranks;
}

std::string per_rank_note(const Collective& c, std::int64_t bytes) {
  if (!c.ompi_times_ranks) return "";
  return fmt::format(" ({} B {} each rank)", bytes, c.name == "allgather" ? "from" : "to");
}

/// A rule's numbers after the message size and algorithm: fan-in/out and segment size 0, and in
/// the version 2 format max_requests 0 (Open MPI's default: no limit).
std::string_view ompi_rule_tail(OmpiRulesFormat format) {
  return format == OmpiRulesFormat::v2 ? " 0 0 0" : " 0 0";
}

void write_ompi_fallback(std::string& out, int from_ranks, int to_ranks, OmpiRulesFormat format) {
  if (to_ranks == from_ranks)
    fmt::format_to(std::back_inserter(out),
                   "{} # communicators of {} ranks: Open MPI's fixed decision\n", from_ranks,
                   from_ranks);
  else if (to_ranks < 0)
    fmt::format_to(std::back_inserter(out),
                   "{} # communicators of {} ranks and more: Open MPI's fixed decision\n",
                   from_ranks, from_ranks);
  else
    fmt::format_to(std::back_inserter(out),
                   "{} # communicators of {} to {} ranks: Open MPI's fixed decision\n", from_ranks,
                   from_ranks, to_ranks);
  fmt::format_to(std::back_inserter(out),
                 "1 # message sizes\n0 0{} # from 0 B: algorithm 0 (fixed decision)\n",
                 ompi_rule_tail(format));
}

}  // namespace
}  // namespace choreo::detail::rules

namespace choreo {

std::string ompi_rules_text(const std::vector<CollectiveDecision>& decisions,
                            OmpiRulesFormat format) {
  using namespace detail::rules;
  const std::vector<Checked> checked = check(decisions, Library::ompi);
  const bool v2 = format == OmpiRulesFormat::v2;
  // Open MPI 5.0 looks for the version line at the very first byte only.
  std::string out = v2 ? "rule-file-version-2\n"
                         "# Open MPI coll_tuned dynamic rules, version 2 format (read by Open MPI "
                         "5.0, not 4.1), by choreo.\n"
                       : "# Open MPI coll_tuned dynamic rules, classic format (read by Open MPI "
                         "4.1 and 5.0), by choreo.\n";
  out +=
      "# Use: mpiexec --mca coll_tuned_use_dynamic_rules 1 "
      "--mca coll_tuned_dynamic_rules_filename FILE\n"
      "# Message sizes are those coll_tuned compares: allgather and alltoall count the bytes of\n"
      "# all ranks (bytes per rank x communicator size), allreduce and bcast the bytes of the\n";
  out += v2 ? "# vector or message. A rule is: message_size algorithm fan_in_out segment_size\n"
              "# max_requests (0: no limit); algorithm 0 hands the call to Open MPI's fixed "
              "decision.\n"
            : "# vector or message. A rule is: message_size algorithm fan_in_out segment_size;\n"
              "# algorithm 0 hands the call to Open MPI's fixed decision.\n";
  std::vector<std::pair<std::size_t, std::size_t>> groups;  // [begin, end) per collective
  for (std::size_t i = 0; i < checked.size(); ++i) {
    if (i == 0 || checked[i].collective != checked[i - 1].collective) groups.emplace_back(i, i);
    groups.back().second = i + 1;
  }
  fmt::format_to(std::back_inserter(out), "{} # collectives\n", groups.size());
  for (const auto& [begin, end] : groups) {
    const Collective& c = *checked[begin].collective;
    // Communicator rules: a fallback below each decision (unless the decision before it ends
    // just below) and one after the last, so each decision holds for its size only.
    std::size_t count = 0;
    int covered = 0;  // sizes < covered are taken
    for (std::size_t i = begin; i < end; ++i) {
      if (checked[i].decision->comm_size > covered) ++count;
      ++count;
      covered = checked[i].decision->comm_size + 1;
    }
    ++count;
    fmt::format_to(std::back_inserter(out), "{} # collective id: {}\n{} # communicator sizes\n",
                   c.ompi_id, c.name, count);
    covered = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const Checked& k = checked[i];
      const CollectiveDecision& d = *k.decision;
      if (d.comm_size > covered) write_ompi_fallback(out, covered, d.comm_size - 1, format);
      fmt::format_to(std::back_inserter(out),
                     "{} # communicators of {} ranks: choreo's decision\n{} # message sizes\n",
                     d.comm_size, d.comm_size, d.rules.size());
      for (std::size_t r = 0; r < d.rules.size(); ++r) {
        const std::int64_t size = ompi_message_size(k, d.rules[r].from_bytes);
        fmt::format_to(std::back_inserter(out), "{} {}{} # from {} B{}: {}\n", size,
                       k.algorithms[r]->ompi, ompi_rule_tail(format), size,
                       per_rank_note(c, d.rules[r].from_bytes), d.rules[r].algorithm);
      }
      covered = d.comm_size + 1;
    }
    write_ompi_fallback(out, covered, -1, format);
  }
  return out;
}

std::vector<DecisionChanges> ompi_export_changes(const std::vector<CollectiveDecision>& decisions) {
  using namespace detail::rules;
  const std::vector<Checked> checked = check(decisions, Library::ompi);
  std::vector<DecisionChanges> out;
  for (const Checked& k : checked) {
    const CollectiveDecision& d = *k.decision;
    DecisionChanges changes{d.collective, d.comm_size, {}};
    for (std::size_t r = 0; r < d.rules.size(); ++r) {
      const Algorithm& a = *k.algorithms[r];
      ChangedRange range{d.rules[r].from_bytes,
                         std::nullopt,
                         d.rules[r].algorithm,
                         fmt::format("{} ({})", a.ompi,
                                     k.collective->ompi_numbers[static_cast<std::size_t>(a.ompi)]),
                         "",
                         ""};
      if (r + 1 < d.rules.size()) range.to_bytes = d.rules[r + 1].from_bytes - 1;
      changes.ranges.push_back(std::move(range));
    }
    out.push_back(std::move(changes));
  }
  return out;
}

}  // namespace choreo
