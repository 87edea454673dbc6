#include "exchange_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <utility>

#include "choreo/core/error.hpp"
#include "timed_runs.hpp"

namespace choreo::mpi::detail {
namespace {

constexpr int kRoot = 0;

/// The summary as MPI moves it.
using SummaryWords = std::array<std::int64_t, 11>;

SummaryWords to_words(const ExchangeReport& s) {
  return {static_cast<std::int64_t>(s.algorithm),
          s.delta_ns,
          s.predicted_ns,
          s.direct_ns,
          s.slots,
          s.delays,
          s.degree_bound,
          s.messages,
          s.largest_bytes,
          s.paced ? 1 : 0,
          0};
}

ExchangeReport from_words(const SummaryWords& w) {
  ExchangeReport s;
  s.algorithm = static_cast<ExchangeAlgorithm>(w[0]);
  s.delta_ns = w[1];
  s.predicted_ns = w[2];
  s.direct_ns = w[3];
  s.slots = static_cast<int>(w[4]);
  s.delays = static_cast<int>(w[5]);
  s.degree_bound = static_cast<int>(w[6]);
  s.messages = w[7];
  s.largest_bytes = w[8];
  s.paced = w[9] != 0;
  return s;
}

/// MPI counts and displacements are ints: refuse what would not fit rather than wrap.
int checked_int(std::size_t value, const char* what) {
  if (value > static_cast<std::size_t>(INT_MAX))
    throw Error(fmt::format(
        "the exchange's {} ({}) exceeds what one MPI call can move ({}); split the exchange", what,
        value, INT_MAX));
  return static_cast<int>(value);
}

/// The root's work: the whole pattern from every rank's (destination, bytes) words, planned;
/// each rank's part as words [receives, sends, (source, bytes)..., (destination, not_before)...].
struct RootPlan {
  ExchangeReport summary;
  std::vector<std::int64_t> parts;
  std::vector<int> part_counts, part_offsets;
};

RootPlan plan_at_root(int ranks, const std::vector<int>& words_per_rank,
                      const std::vector<std::int64_t>& words, const ExchangeModel& model,
                      ExchangeAlgorithm algorithm) {
  Pattern pattern;
  pattern.ranks = ranks;
  std::size_t at = 0;
  for (int source = 0; source < ranks; ++source)
    for (int k = 0; k < words_per_rank[static_cast<std::size_t>(source)]; k += 2, at += 2)
      pattern.messages.push_back({source, static_cast<int>(words[at]), words[at + 1]});
  const ExchangePlan plan = plan_exchange(pattern, model, algorithm);

  // Incoming messages per rank, sorted by source, to look up the bytes of each receive.
  std::vector<std::vector<IncomingMessage>> incoming(static_cast<std::size_t>(ranks));
  std::int64_t largest = 0;
  for (const Message& message : pattern.messages) {
    incoming[static_cast<std::size_t>(message.dst)].push_back({message.src, message.bytes});
    largest = std::max(largest, message.bytes);
  }
  RootPlan root;
  root.part_counts.resize(static_cast<std::size_t>(ranks));
  root.part_offsets.resize(static_cast<std::size_t>(ranks));
  bool paced = false;
  for (int rank = 0; rank < ranks; ++rank) {
    const RankExchange& part = plan.ranks[static_cast<std::size_t>(rank)];
    std::vector<IncomingMessage>& in = incoming[static_cast<std::size_t>(rank)];
    std::sort(in.begin(), in.end(), [](auto& a, auto& b) { return a.source < b.source; });
    if (in.size() != part.receive_from.size())
      throw Error(fmt::format("internal: the plan posts {} receives on rank {}, the pattern has {}",
                              part.receive_from.size(), rank, in.size()));
    root.part_offsets[static_cast<std::size_t>(rank)] = checked_int(root.parts.size(), "plan");
    root.parts.push_back(static_cast<std::int64_t>(part.receive_from.size()));
    root.parts.push_back(static_cast<std::int64_t>(part.sends.size()));
    for (int source : part.receive_from) {
      auto found = std::lower_bound(in.begin(), in.end(), source,
                                    [](const IncomingMessage& m, int s) { return m.source < s; });
      if (found == in.end() || found->source != source)
        throw Error(fmt::format("internal: rank {} receives from {}, which sends it nothing", rank,
                                source));
      root.parts.push_back(source);
      root.parts.push_back(found->bytes);
    }
    for (const ExchangeSend& send : part.sends) {
      root.parts.push_back(send.peer);
      root.parts.push_back(send.not_before_ns);
      paced = paced || send.not_before_ns > 0;
    }
    root.part_counts[static_cast<std::size_t>(rank)] =
        checked_int(root.parts.size(), "plan") - root.part_offsets[static_cast<std::size_t>(rank)];
  }

  ExchangeReport& summary = root.summary;
  summary.algorithm = plan.algorithm;
  summary.delta_ns = plan.delta_ns;
  summary.predicted_ns = plan.predicted_ns;
  summary.direct_ns = plan.direct_ns;
  summary.degree_bound = plan.degree_bound;
  for (const ExchangeCandidate& candidate : plan.candidates)
    if (candidate.algorithm == plan.algorithm) {
      summary.slots = candidate.slots;
      summary.delays = candidate.delays;
    }
  summary.messages = static_cast<std::int64_t>(pattern.messages.size());
  summary.largest_bytes = largest;
  summary.paced = paced;
  return root;
}

}  // namespace

PlannedExchange plan_collectively(MPI_Comm comm, std::span<const Message> my_sends,
                                  const ExchangeModel& model, ExchangeAlgorithm algorithm) {
  int rank = 0, ranks = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  // Every rank's sends to the root: (destination, bytes) pairs.
  std::vector<std::int64_t> mine;
  mine.reserve(2 * my_sends.size());
  for (const Message& message : my_sends) {
    mine.push_back(message.dst);
    mine.push_back(message.bytes);
  }
  std::string failure;
  int my_words = 0;
  try {
    my_words = checked_int(mine.size(), "message count");
  } catch (const Error& e) {
    failure = e.what();
  }
  agree_on_failure(failure, comm);

  std::vector<int> words_per_rank, word_offsets;
  if (rank == kRoot) {
    words_per_rank.resize(static_cast<std::size_t>(ranks));
    word_offsets.resize(static_cast<std::size_t>(ranks));
  }
  MPI_Gather(&my_words, 1, MPI_INT, words_per_rank.data(), 1, MPI_INT, kRoot, comm);
  std::vector<std::int64_t> words;
  if (rank == kRoot) {
    std::size_t total = 0;
    for (std::size_t r = 0; r < words_per_rank.size(); ++r) {
      word_offsets[r] = static_cast<int>(std::min<std::size_t>(total, INT_MAX));
      total += static_cast<std::size_t>(words_per_rank[r]);
    }
    try {
      checked_int(total, "whole pattern");
      words.resize(total);
    } catch (const Error& e) {
      failure = e.what();
    }
  }
  agree_on_failure(failure, comm);
  MPI_Gatherv(mine.data(), my_words, MPI_INT64_T, words.data(), words_per_rank.data(),
              word_offsets.data(), MPI_INT64_T, kRoot, comm);
  mine = {};

  RootPlan root;
  if (rank == kRoot) {
    try {
      root = plan_at_root(ranks, words_per_rank, words, model, algorithm);
    } catch (const Error& e) {
      failure = e.what();
    }
    words = {};
  }
  agree_on_failure(failure, comm);

  SummaryWords summary = to_words(root.summary);
  MPI_Bcast(summary.data(), static_cast<int>(summary.size()), MPI_INT64_T, kRoot, comm);
  int part_words = 0;
  MPI_Scatter(root.part_counts.data(), 1, MPI_INT, &part_words, 1, MPI_INT, kRoot, comm);
  std::vector<std::int64_t> part(static_cast<std::size_t>(part_words));
  MPI_Scatterv(root.parts.data(), root.part_counts.data(), root.part_offsets.data(), MPI_INT64_T,
               part.data(), part_words, MPI_INT64_T, kRoot, comm);

  PlannedExchange planned;
  planned.summary = from_words(summary);
  const auto receives = static_cast<std::size_t>(part[0]),
             sends = static_cast<std::size_t>(part[1]);
  planned.receives.reserve(receives);
  planned.sends.reserve(sends);
  std::size_t at = 2;
  for (std::size_t k = 0; k < receives; ++k, at += 2)
    planned.receives.push_back({static_cast<int>(part[at]), part[at + 1]});
  for (std::size_t k = 0; k < sends; ++k, at += 2)
    planned.sends.push_back({static_cast<int>(part[at]), part[at + 1]});
  return planned;
}

std::string find_receive_mismatch(const PlannedExchange& planned,
                                  std::span<const std::int64_t> expected_bytes, int rank,
                                  const std::function<std::string(int source)>& explain) {
  std::vector<std::int64_t> sent(expected_bytes.size(), 0);
  for (const IncomingMessage& message : planned.receives)
    sent[static_cast<std::size_t>(message.source)] = message.bytes;
  for (std::size_t source = 0; source < expected_bytes.size(); ++source) {
    if (static_cast<int>(source) == rank || sent[source] == expected_bytes[source]) continue;
    return fmt::format(
        "rank {} sends {} bytes to rank {} but rank {} expects {} bytes from rank {}{}", source,
        sent[source], rank, rank, expected_bytes[source], source,
        explain(static_cast<int>(source)));
  }
  return {};
}

}  // namespace choreo::mpi::detail
