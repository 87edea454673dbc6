// Decisions -> Open MPI coll_tuned rules / MPICH CSEL JSON, and back (docs/selection.md).
//
// What each library compares against a rule's threshold, for choreo's `bytes` b on a
// communicator of P ranks (b: allgather = bytes per rank, bcast = message bytes,
// allreduce = vector bytes, alltoall = bytes per destination):
//
//   Open MPI 4.1.4, ompi/mca/coll/tuned/coll_tuned_decision_dynamic.c: each
//   ompi_coll_tuned_<coll>_intra_dec_dynamic computes dsize and picks the message rule with the
//   largest msg_size <= dsize (rules start at 0, so one always matches):
//     allgather  dsize = type_size(sdtype) * scount * P  = b * P
//     alltoall   dsize = type_size(sdtype) * scount * P  = b * P
//     allreduce  dsize = type_size(dtype) * count        = b
//     bcast      dsize = type_size(dtype) * count        = b
//   so a choreo rule from f bytes is written as msg_size f*P (allgather, alltoall) or f, and a
//   msg_size M reads back as ceil(M / P) bytes per rank (the smallest b with b*P >= M).
//   The communicator rule used is the one with the largest comm size <= P (or the first), so
//   the writer brackets each decision with algorithm-0 rules (Open MPI's fixed decision).
//   Collective ids are Open MPI 4.1.4's COLLTYPE enum (coll_base_functions.h):
//   allgather 0, allreduce 2, alltoall 3, bcast 7; COLLCOUNT is 22. Open MPI 5.0 has the same
//   ids and the same numbers for the algorithms choreo exports.
//
//   Open MPI 5.0's reader (ompi_coll_tuned_read_rules_config_file in coll_tuned_dynamic_file.c)
//   first tries fscanf(f, "rule-file-version-%u"): only at the very first byte, and a file
//   without it is version 1. The numbers are read with fscanf("%li") (so 010 is octal 8); in a
//   version 2 file, after the segment size of a rule, a digit as the next character other than
//   space and tab (ompi_coll_base_file_peek_next_char_isdigit) starts a fifth number, the rule's
//   max_requests. Open MPI 4.1.4 knows no version line.
//
//   MPICH 4.0.2, src/mpi/coll/src/csel.c (get_avg_msgsize, get_total_msgsize): a branch
//   "K<=V" is taken when K <= V (atoi: V must fit an int), "K=any" always:
//     allgather  total_msg_size = type_size(recvtype) * recvcount * P = b * P
//                (avg_msg_size is not defined for allgather: MPICH aborts)
//     alltoall   avg_msg_size   = type_size(sendtype) * sendcount    = b
//     allreduce  avg_msg_size   = type_size(datatype) * count        = b
//     bcast      avg_msg_size   = type_size(datatype) * count        = b
//   so a rule that ends before f bytes is written as total_msg_size<=f*P-1 (allgather) or
//   avg_msg_size<=f-1, and total_msg_size<=V reads back as "next rule from floor(V/P)+1".
//   The file replaces MPICH's built-in tree, so the writer starts from that tree (MPICH 4.0.2's
//   maint/tuning/coll/mpir/generic.json, compiled into libmpich as MPII_coll_generic_json; here
//   src/select/data/mpich-4.0.2-mpir-generic.json, embedded at build time) and replaces only
//   the comm_type=intra subtree of each collective choreo decides.
//   MPIR_Csel_prune walks each collective's subtree when a communicator is created, deciding
//   the conditions on the communicator (comm_type, comm_size, comm_hierarchy, ...) until the
//   first condition on the call; MPIR_Csel_search decides the rest at each call. Pruning tests
//   comm_size<N as <, the search as <= (mpich_csel_select models both).
//
// The tests in tests/mpi/CMakeLists.txt (mpi.rules_*) put a threshold at exactly these values
// and show, with gdb breakpoints in the libraries, that b-1 and b run different algorithms, and
// that calls the file does not decide run what MPICH runs without it.
#include "choreo/rules_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "choreo/error.hpp"
#include "choreo/json_read.hpp"

namespace choreo {
namespace {

using ordered_json = nlohmann::ordered_json;

struct Algorithm {
  std::string_view name;   ///< choreo's generator name
  int ompi;                ///< Open MPI 4.1.4 coll_tuned_<coll>_algorithm number
  std::string_view mpich;  ///< MPICH 4.0.2 CSEL algorithm, empty when MPICH lacks it
};

struct Collective {
  std::string_view name;
  int ompi_id;            ///< COLLTYPE in Open MPI 4.1.4
  bool ompi_times_ranks;  ///< coll_tuned compares bytes * comm size
  bool mpich_total;       ///< CSEL key total_msg_size (bytes * comm size), else avg_msg_size
  std::vector<Algorithm> algorithms;
  std::vector<std::string_view> ompi_numbers;  ///< Open MPI's algorithms by number, for messages
  /// CSEL conditions of calls choreo's MPICH algorithms cannot take: inside a decision they lead
  /// to MPICH's stock subtree. MPICH's pairwise and Bruck alltoall do not take MPI_IN_PLACE;
  /// its reduce-scatter/allgather allreduce is for commutative built-in ops with count >= the
  /// largest power of two <= P.
  std::vector<std::string_view> mpich_guards;
};

const std::vector<Collective>& collectives() {
  static const std::vector<Collective> table = {
      {"allgather",
       0,
       true,
       true,
       {{"ring", 4, "MPIR_Allgather_intra_ring"},
        {"bruck", 2, "MPIR_Allgather_intra_brucks"},
        {"recdbl", 3, "MPIR_Allgather_intra_recursive_doubling"},
        {"neighbor", 5, ""}},
       {"ignore", "basic linear", "bruck", "recursive doubling", "ring", "neighbor exchange",
        "two proc only"},
       {}},
      {"allreduce",
       2,
       false,
       false,
       {{"recdbl", 3, "MPIR_Allreduce_intra_recursive_doubling"},
        {"ring", 4, ""},
        {"rabenseifner", 6, "MPIR_Allreduce_intra_reduce_scatter_allgather"}},
       {"ignore", "basic linear", "nonoverlapping", "recursive doubling", "ring", "segmented ring",
        "rabenseifner"},
       {"is_commutative=no", "is_op_built_in=no", "count<pow2"}},
      {"alltoall",
       3,
       true,
       false,
       {{"pairwise", 2, "MPIR_Alltoall_intra_pairwise"},
        {"bruck", 3, "MPIR_Alltoall_intra_brucks"}},
       {"ignore", "basic linear", "pairwise", "modified bruck", "linear with sync",
        "two proc only"},
       {"is_sendbuf_inplace=yes"}},
      {"bcast",
       7,
       false,
       false,
       {{"binomial", 6, "MPIR_Bcast_intra_binomial"},
        {"scatter_allgather", 8, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"}},
       {"ignore", "basic linear", "chain", "pipeline", "split binary tree", "binary tree",
        "binomial", "knomial", "scatter_allgather", "scatter_allgather_ring"},
       {}},
  };
  return table;
}

/// Open MPI 4.1.4's COLLTYPE names, by id.
constexpr std::string_view kOmpiCollectives[] = {"allgather",
                                                 "allgatherv",
                                                 "allreduce",
                                                 "alltoall",
                                                 "alltoallv",
                                                 "alltoallw",
                                                 "barrier",
                                                 "bcast",
                                                 "exscan",
                                                 "gather",
                                                 "gatherv",
                                                 "reduce",
                                                 "reduce_scatter",
                                                 "reduce_scatter_block",
                                                 "scan",
                                                 "scatter",
                                                 "scatterv",
                                                 "neighbor_allgather",
                                                 "neighbor_allgatherv",
                                                 "neighbor_alltoall",
                                                 "neighbor_alltoallv",
                                                 "neighbor_alltoallw"};
constexpr auto kOmpiCollCount = static_cast<std::int64_t>(std::size(kOmpiCollectives));

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

/// "a, b and c".
template <typename Items, typename Format>
std::string join(const Items& items, Format format) {
  std::string out;
  std::size_t i = 0;
  for (const auto& item : items) {
    if (i > 0) out += i + 1 == std::size(items) ? " and " : ", ";
    out += format(item);
    ++i;
  }
  return out;
}

std::string collective_names() {
  return join(collectives(), [](const Collective& c) { return std::string(c.name); });
}

const Collective* find_collective(std::string_view name) {
  for (const Collective& c : collectives())
    if (c.name == name) return &c;
  return nullptr;
}

enum class Library { ompi, mpich };

std::string_view library_name(Library library) {
  return library == Library::ompi ? "Open MPI 4.1.4" : "MPICH 4.0.2";
}

bool has(const Algorithm& a, Library library) {
  return library == Library::ompi ? a.ompi != 0 : !a.mpich.empty();
}

std::string available(const Collective& c, Library library) {
  std::vector<const Algorithm*> present;
  for (const Algorithm& a : c.algorithms)
    if (has(a, library)) present.push_back(&a);
  return join(present, [&](const Algorithm* a) {
    return library == Library::ompi ? fmt::format("{} ({})", a->name, a->ompi)
                                    : fmt::format("{} ({})", a->name, a->mpich);
  });
}

std::string label(const CollectiveDecision& d) {
  return fmt::format("decision for {} on {} ranks", d.collective, d.comm_size);
}

const Algorithm& find_algorithm(const Collective& c, const CollectiveDecision& d,
                                const std::string& name, Library library) {
  for (const Algorithm& a : c.algorithms) {
    if (a.name != name) continue;
    if (!has(a, library))
      throw Error(fmt::format("{}: {} has no {} algorithm '{}'; it has {}", label(d),
                              library_name(library), c.name, name, available(c, library)));
    return a;
  }
  throw Error(fmt::format("{}: unknown {} algorithm '{}'; choreo's are {}", label(d), c.name, name,
                          join(c.algorithms, [](const Algorithm& a) { return a.name; })));
}

/// A decision checked against the tables, with its collective and algorithms resolved.
struct Checked {
  const CollectiveDecision* decision;
  const Collective* collective;
  std::vector<const Algorithm*> algorithms;  ///< one per rule
};

std::vector<Checked> check(const std::vector<CollectiveDecision>& decisions, Library library) {
  std::vector<Checked> out;
  for (const CollectiveDecision& d : decisions) {
    const Collective* c = find_collective(d.collective);
    if (c == nullptr)
      throw Error(fmt::format("{}: unknown collective '{}'; choreo exports {}", label(d),
                              d.collective, collective_names()));
    if (d.comm_size < 1 || d.comm_size == std::numeric_limits<int>::max())
      throw Error(fmt::format("{}: comm_size must be 1 to {}", label(d),
                              std::numeric_limits<int>::max() - 1));
    if (d.rules.empty())
      throw Error(fmt::format("{}: no size rules; give at least one from 0 bytes", label(d)));
    Checked checked{&d, c, {}};
    for (std::size_t i = 0; i < d.rules.size(); ++i) {
      const SizeRule& r = d.rules[i];
      if (i == 0 && r.from_bytes != 0)
        throw Error(fmt::format("{}: the first rule must start at 0 bytes, not {}", label(d),
                                r.from_bytes));
      if (i > 0 && r.from_bytes <= d.rules[i - 1].from_bytes)
        throw Error(
            fmt::format("{}: rule {} starts at {} bytes, not above the {} bytes of the "
                        "rule before it; rules must ascend",
                        label(d), i, r.from_bytes, d.rules[i - 1].from_bytes));
      checked.algorithms.push_back(&find_algorithm(*c, d, r.algorithm, library));
    }
    out.push_back(std::move(checked));
  }
  std::ranges::sort(out, [](const Checked& a, const Checked& b) {
    return std::pair(a.collective->ompi_id, a.decision->comm_size) <
           std::pair(b.collective->ompi_id, b.decision->comm_size);
  });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].collective == out[i - 1].collective &&
        out[i].decision->comm_size == out[i - 1].decision->comm_size)
      throw Error(fmt::format("two decisions for {} on {} ranks; give one per communicator size",
                              out[i].collective->name, out[i].decision->comm_size));
  return out;
}

void sort_decisions(std::vector<CollectiveDecision>& decisions) {
  std::ranges::sort(decisions, [](const CollectiveDecision& a, const CollectiveDecision& b) {
    return std::pair(find_collective(a.collective)->ompi_id, a.comm_size) <
           std::pair(find_collective(b.collective)->ompi_id, b.comm_size);
  });
}

// ---------------------------------------------------------------------------------------------
// Open MPI

/// The message size coll_tuned compares for `bytes` (see the top of this file).
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

std::span<const std::string_view> mpi_collectives() { return kOmpiCollectives; }

std::vector<std::string> exportable_algorithms(std::string_view collective, TuningLibrary library) {
  const Collective* c = find_collective(collective);
  if (c == nullptr)
    throw Error(fmt::format("choreo exports no tuning rules for '{}'; it exports {}", collective,
                            collective_names()));
  const Library l = library == TuningLibrary::OpenMpi ? Library::ompi : Library::mpich;
  std::vector<std::string> out;
  for (const Algorithm& a : c->algorithms)
    if (has(a, l)) out.emplace_back(a.name);
  return out;
}

std::string ompi_rules_text(const std::vector<CollectiveDecision>& decisions,
                            OmpiRulesFormat format) {
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

namespace {

/// An integer of a rules file with its line number.
struct Token {
  std::int64_t value;
  int line;
  bool after_blanks;  ///< only spaces and tabs since the token before it (same line, no comment)
};

/// A rules file's version (1 without a version line) and integers; '#' starts a comment.
struct OmpiRulesTokens {
  std::int64_t version = 1;
  std::vector<Token> tokens;
};

constexpr std::string_view kVersionPrefix = "rule-file-version-";

std::string shown_byte(char ch) {
  const auto byte = static_cast<unsigned char>(ch);
  return byte >= 0x20 && byte < 0x7f ? std::string(1, ch) : fmt::format("\\x{:02x}", byte);
}

OmpiRulesTokens ompi_tokens(std::string_view text) {
  OmpiRulesTokens out;
  std::size_t i = 0;
  if (text.starts_with(kVersionPrefix)) {
    i = kVersionPrefix.size();
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 3) ++i;
    const std::string_view digits = text.substr(start, i - start);
    if (digits != "1" && digits != "2") {
      const std::size_t end = std::min(text.find_first_of(" \t\r\n#"), std::size_t{40});
      throw Error(
          fmt::format("line 1: '{}': choreo reads versions 1 (classic) and 2 (Open MPI 5.0)",
                      text.substr(0, end)));
    }
    out.version = digits[0] - '0';
  }
  int line = 1;
  bool blanks_only = false;  // only spaces and tabs since the last token
  for (; i < text.size();) {
    const char ch = text[i];
    if (ch == ' ' || ch == '\t') {
      ++i;
      continue;
    }
    if (ch == '\n') {
      ++line;
      ++i;
    } else if (ch == '\r' || ch == '\f' || ch == '\v') {
      ++i;
    } else if (ch == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (ch >= '0' && ch <= '9') {
      std::int64_t value = 0;
      const std::size_t start = i;
      for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        const int digit = text[i] - '0';
        if (value > (kInt64Max - digit) / 10)
          throw Error(fmt::format("line {}: number {}... does not fit 64 bits", line,
                                  text.substr(start, 20)));
        value = value * 10 + digit;
      }
      if (i < text.size() && text[i] != '#' && text[i] != '\n' && text[i] != ' ' &&
          text[i] != '\t' && text[i] != '\r')
        throw Error(
            fmt::format("line {}: '{}' is not a number; an Open MPI rules file holds "
                        "non-negative decimal integers and # comments",
                        line, text.substr(start, i - start + 1)));
      if (text[start] == '0' && i - start > 1)
        throw Error(fmt::format(
            "line {}: {} has a leading zero, which Open MPI reads as an octal number; write it "
            "without",
            line, text.substr(start, i - start)));
      out.tokens.push_back({value, line, blanks_only});
      blanks_only = true;
      continue;
    } else if (text.substr(i).starts_with("rule-file-version")) {
      throw Error(
          fmt::format("line {}: a rule-file-version line must be the first bytes of the file: "
                      "Open MPI 5.0 looks for it nowhere else (and Open MPI 4.1.4 not at all)",
                      line));
    } else {
      throw Error(
          fmt::format("line {}: unexpected '{}'; an Open MPI rules file holds "
                      "non-negative decimal integers and # comments",
                      line, shown_byte(ch)));
    }
    blanks_only = false;
  }
  return out;
}

class TokenReader {
 public:
  explicit TokenReader(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  /// Whether the next integer follows the last one on its line after spaces and tabs only.
  bool next_on_same_line() const {
    return position_ < tokens_.size() && tokens_[position_].after_blanks;
  }

  /// The next integer, described as `what` in the error when the file ends.
  Token next(const std::string& what) {
    if (position_ == tokens_.size())
      throw Error(fmt::format("line {}: the file ends where {} should be", last_line(), what));
    return tokens_[position_++];
  }
  bool done() const { return position_ == tokens_.size(); }
  int last_line() const { return tokens_.empty() ? 1 : tokens_.back().line; }

 private:
  std::vector<Token> tokens_;
  std::size_t position_ = 0;
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

}  // namespace

std::vector<CollectiveDecision> parse_ompi_rules(std::string_view text) {
  OmpiRulesTokens tokens = ompi_tokens(text);
  const std::int64_t version = tokens.version;
  TokenReader in(std::move(tokens.tokens));
  std::vector<CollectiveDecision> decisions;
  const Token ncol = in.next("the number of collectives");
  if (ncol.value > kOmpiCollCount)
    throw Error(fmt::format("line {}: {} collectives; Open MPI 4.1.4 has {}", ncol.line, ncol.value,
                            kOmpiCollCount));
  std::set<std::int64_t> seen;
  for (std::int64_t n = 0; n < ncol.value; ++n) {
    const Token id = in.next(fmt::format("the id of collective {} of {}", n + 1, ncol.value));
    if (id.value >= kOmpiCollCount)
      throw Error(fmt::format("line {}: collective id {} is not one of Open MPI 4.1.4's 0 to {}",
                              id.line, id.value, kOmpiCollCount - 1));
    const auto idx = static_cast<std::size_t>(id.value);
    const Collective* c = find_collective(kOmpiCollectives[idx]);
    if (c == nullptr)
      throw Error(fmt::format(
          "line {}: collective id {} ({}) is not one choreo decides; it reads {}", id.line,
          id.value, kOmpiCollectives[idx], join(collectives(), [](const Collective& k) {
            return fmt::format("{} ({})", k.name, k.ompi_id);
          })));
    if (!seen.insert(id.value).second)
      throw Error(fmt::format("line {}: collective {} ({}) appears a second time", id.line,
                              id.value, c->name));
    const Token ncomm = in.next(fmt::format("the number of communicator sizes of {}", c->name));
    std::int64_t previous_size = -1;
    for (std::int64_t k = 0; k < ncomm.value; ++k) {
      const Token comm = in.next(fmt::format("communicator size {} of {}", k + 1, c->name));
      if (comm.value <= previous_size)
        throw Error(
            fmt::format("line {}: communicator size {} of {} is not above the size {} "
                        "before it; sizes must ascend",
                        comm.line, comm.value, c->name, previous_size));
      if (comm.value > kIntMax)
        throw Error(fmt::format("line {}: communicator size {} does not fit an int", comm.line,
                                comm.value));
      previous_size = comm.value;
      const std::string where = fmt::format("{} on {} ranks", c->name, comm.value);
      const Token nmsg = in.next(fmt::format("the number of message sizes of {}", where));
      if (nmsg.value == 0)
        throw Error(
            fmt::format("line {}: {} has no message size rules; give at least one "
                        "from 0",
                        nmsg.line, where));
      CollectiveDecision d{std::string(c->name), static_cast<int>(comm.value), {}};
      bool fallback = false;
      for (std::int64_t m = 0; m < nmsg.value; ++m) {
        const std::string rule = fmt::format("message rule {} of {}", m + 1, where);
        const Token size = in.next(fmt::format("the message size of {}", rule));
        const Token alg = in.next(fmt::format("the algorithm of {}", rule));
        in.next(fmt::format("the fan-in/out of {}", rule));
        in.next(fmt::format("the segment size of {}", rule));
        // Open MPI 5.0 reads a fifth number only in a version 2 file, and only on the same line.
        if (version > 1 && in.next_on_same_line())
          in.next(fmt::format("the max_requests of {}", rule));
        if (m == 0 && size.value != 0)
          throw Error(
              fmt::format("line {}: the first message size of {} is {}; Open MPI needs "
                          "it to be 0",
                          size.line, where, size.value));
        if (alg.value == 0) {
          if (nmsg.value != 1)
            throw Error(
                fmt::format("line {}: algorithm 0 (Open MPI's fixed decision) in {}; "
                            "choreo reads it only as the single rule of a "
                            "communicator size",
                            alg.line, rule));
          fallback = true;
          continue;
        }
        const auto number = static_cast<std::size_t>(alg.value);
        const auto a = std::ranges::find_if(
            c->algorithms, [&](const Algorithm& x) { return x.ompi == alg.value; });
        if (a == c->algorithms.end())
          throw Error(fmt::format(
              "line {}: {} algorithm {} ({}) has no choreo generator; choreo reads {}", alg.line,
              c->name, alg.value,
              number < c->ompi_numbers.size() ? c->ompi_numbers[number]
                                              : std::string_view("not an Open MPI 4.1.4 one"),
              available(*c, Library::ompi)));
        std::int64_t from = size.value;
        if (c->ompi_times_ranks) {
          if (comm.value == 0)
            throw Error(
                fmt::format("line {}: {} on 0 ranks has algorithm rules; choreo "
                            "decisions are for communicators of 1 rank or more",
                            size.line, c->name));
          from = ceil_div(size.value, comm.value);
        }
        if (!d.rules.empty() && from <= d.rules.back().from_bytes)
          throw Error(
              fmt::format("line {}: message size {} of {} is not above the rule before "
                          "it{}; sizes must ascend",
                          size.line, size.value, where,
                          c->ompi_times_ranks ? " once divided by the communicator size" : ""));
        d.rules.push_back({from, std::string(a->name)});
      }
      if (fallback) continue;
      if (comm.value == 0)
        throw Error(
            fmt::format("line {}: {} on 0 ranks has algorithm rules; choreo decisions "
                        "are for communicators of 1 rank or more",
                        comm.line, c->name));
      decisions.push_back(std::move(d));
    }
  }
  if (!in.done())
    throw Error(fmt::format("line {}: more numbers after the {} collectives the file declares",
                            in.next("").line, ncol.value));
  sort_decisions(decisions);
  return decisions;
}

// ---------------------------------------------------------------------------------------------
// MPICH

namespace {

#include "mpich_stock_csel.inc"  // kMpichStockCsel: src/select/data/mpich-4.0.2-mpir-generic.json

std::string child(const std::string& path, const std::string& key) {
  return fmt::format("{}[\"{}\"]", path, key);
}

/// JSON text to a tree, with duplicate keys rejected (json-c, which MPICH uses, would keep one
/// of them silently).
ordered_json parse_without_duplicate_keys(std::string_view text) {
  std::vector<std::pair<std::set<std::string>, std::string>> objects;  // keys, path
  std::string pending_key;
  auto callback = [&](int, ordered_json::parse_event_t event, ordered_json& parsed) {
    using E = ordered_json::parse_event_t;
    if (event == E::object_start || event == E::array_start) {
      std::string path = objects.empty() ? "$" : child(objects.back().second, pending_key);
      objects.emplace_back(std::set<std::string>{}, std::move(path));
    } else if (event == E::object_end || event == E::array_end) {
      objects.pop_back();
    } else if (event == E::key) {
      pending_key = parsed.get<std::string>();
      if (!objects.back().first.insert(pending_key).second)
        throw Error(fmt::format("{}: key \"{}\" appears twice; MPICH would keep only one",
                                objects.back().second, pending_key));
    }
    return true;
  };
  try {
    return ordered_json::parse(text.begin(), text.end(), callback);
  } catch (const nlohmann::json::parse_error& e) {
    throw invalid_json(e);
  } catch (const nlohmann::json::out_of_range& e) {  // a number beyond a double: 1e400
    const std::string what = e.what();
    throw Error(
        fmt::format("invalid JSON: {}; numbers must fit a double",
                    what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2)));
  }
}

/// MPICH 4.0.2's stock tree, parsed once.
const ordered_json& mpich_stock_tree() {
  static const ordered_json tree = parse_without_duplicate_keys(kMpichStockCsel);
  return tree;
}

/// The stock comm_type=intra subtree of a collective choreo decides.
const ordered_json& mpich_stock_intra(const Collective& c) {
  return mpich_stock_tree().at(fmt::format("collective={}", c.name)).at("comm_type=intra");
}

ordered_json leaf(std::string_view algorithm) {
  ordered_json node = ordered_json::object();
  node[fmt::format("algorithm={}", algorithm)] = ordered_json::object();
  return node;
}

/// The message-size chain of one decision.
ordered_json mpich_size_chain(const Checked& k) {
  const CollectiveDecision& d = *k.decision;
  const std::string_view key = k.collective->mpich_total ? "total_msg_size" : "avg_msg_size";
  const std::int64_t scale = k.collective->mpich_total ? d.comm_size : 1;
  ordered_json chain = ordered_json::object();
  for (std::size_t r = 0; r + 1 < d.rules.size(); ++r) {
    const std::int64_t next = d.rules[r + 1].from_bytes;
    if (next > (kIntMax + 1) / scale)
      throw Error(fmt::format(
          "{}: the rule from {} bytes needs {}<={}{} - 1, above the {} "
          "MPICH 4.0.2 reads (it parses thresholds with atoi)",
          label(d), next, key, next, scale > 1 ? fmt::format(" x {}", scale) : "", kIntMax));
    chain[fmt::format("{}<={}", key, next * scale - 1)] = leaf(k.algorithms[r]->mpich);
  }
  chain[fmt::format("{}=any", key)] = leaf(k.algorithms.back()->mpich);
  return chain;
}

/// One decision: the calls its algorithms cannot take to the stock subtree, then the
/// message-size chain.
ordered_json mpich_decision_branch(const Checked& k, const ordered_json& stock) {
  ordered_json branch = ordered_json::object();
  for (const std::string_view guard : k.collective->mpich_guards)
    branch[std::string(guard)] = stock;
  const ordered_json chain = mpich_size_chain(k);
  for (const auto& [key, value] : chain.items()) branch[key] = value;
  return branch;
}

/// The comm_type=intra subtree of a decided collective: the stock subtree for every
/// communicator size without a decision.
ordered_json mpich_decided_intra(const std::vector<const Checked*>& decided,
                                 const ordered_json& stock) {
  ordered_json intra = ordered_json::object();
  int covered = 0;  // communicator sizes <= covered are taken
  for (const Checked* k : decided) {
    const int size = k->decision->comm_size;
    if (size - 1 > covered) intra[fmt::format("comm_size<={}", size - 1)] = stock;
    intra[fmt::format("comm_size<={}", size)] = mpich_decision_branch(*k, stock);
    covered = size;
  }
  intra["comm_size=any"] = stock;
  return intra;
}

}  // namespace

std::string_view mpich_stock_csel_json() { return kMpichStockCsel; }

std::string mpich_csel_json(const std::vector<CollectiveDecision>& decisions) {
  const std::vector<Checked> checked = check(decisions, Library::mpich);
  ordered_json root = mpich_stock_tree();
  for (const Collective& c : collectives()) {
    std::vector<const Checked*> decided;
    for (const Checked& k : checked)
      if (k.collective == &c) decided.push_back(&k);
    if (decided.empty()) continue;
    // Only this subtree changes; every other key keeps its place and its stock value.
    root.at(fmt::format("collective={}", c.name)).at("comm_type=intra") =
        mpich_decided_intra(decided, mpich_stock_intra(c));
  }
  return root.dump(2) + "\n";
}

namespace {

bool is_uint(std::string_view text) {
  return !text.empty() && text.size() <= 10 &&
         std::ranges::all_of(text, [](char ch) { return ch >= '0' && ch <= '9'; });
}

/// Keys MPICH 4.0.2's CSEL parser knows (csel.c parse_json_tree); others make it abort.
bool known_csel_key(std::string_view key) {
  static const std::set<std::string_view> exact = {"is_multi_threaded=yes",
                                                   "is_multi_threaded=no",
                                                   "comm_type=intra",
                                                   "comm_type=inter",
                                                   "comm_size=pow2",
                                                   "comm_size=node_comm_size",
                                                   "comm_size=any",
                                                   "count<pow2",
                                                   "count=any",
                                                   "avg_msg_size=any",
                                                   "total_msg_size=any",
                                                   "is_commutative=yes",
                                                   "is_commutative=no",
                                                   "is_sendbuf_inplace=yes",
                                                   "is_sendbuf_inplace=no",
                                                   "is_op_built_in=yes",
                                                   "is_op_built_in=no",
                                                   "is_block_regular=yes",
                                                   "is_block_regular=no",
                                                   "is_node_consecutive=yes",
                                                   "is_node_consecutive=no",
                                                   "comm_hierarchy=parent",
                                                   "comm_hierarchy=node_roots",
                                                   "comm_hierarchy=node",
                                                   "comm_hierarchy=flat",
                                                   "comm_hierarchy=any"};
  if (exact.contains(key)) return true;
  for (std::string_view prefix :
       {"comm_size<=", "comm_size<", "count<=", "avg_msg_size<=", "avg_msg_size<",
        "total_msg_size<=", "total_msg_size<", "comm_avg_ppn<="})
    if (key.starts_with(prefix)) return is_uint(key.substr(prefix.size()));
  return false;
}

bool is_container_key(std::string_view key) {
  return key.starts_with("algorithm=") || key.starts_with("composition=");
}

/// The algorithm of a leaf {"algorithm=NAME": {}}, or nullopt when `node` is not a leaf.
std::optional<std::string> leaf_algorithm(const ordered_json& node, const std::string& path) {
  if (!node.is_object())
    throw Error(fmt::format("{}: expected a JSON object, found {}", path, node.type_name()));
  if (node.empty())
    throw Error(fmt::format("{}: an empty object selects nothing; MPICH aborts on it", path));
  bool container = false;
  for (const auto& [key, value] : node.items()) container |= is_container_key(key);
  if (!container) return std::nullopt;
  const auto first = node.begin();
  const std::string& key = first.key();
  const ordered_json& value = first.value();
  if (node.size() != 1 || !is_container_key(key))
    throw Error(fmt::format("{}: an algorithm= key must be alone in its object", path));
  if (!value.is_object() || !value.empty())
    throw Error(fmt::format("{}: the value of \"{}\" must be {{}}", child(path, key), key));
  if (!key.starts_with("algorithm="))
    throw Error(
        fmt::format("{}: composition= names a CH4 composition; an MPIR-level file "
                    "names algorithm=MPIR_...",
                    child(path, key)));
  return std::string(key.substr(std::string_view("algorithm=").size()));
}

/// Checks a subtree choreo does not read: objects only, keys MPICH knows, leaves {}.
void validate_subtree(const ordered_json& node, const std::string& path) {
  if (leaf_algorithm(node, path)) return;
  for (const auto& [key, value] : node.items()) {
    if (!known_csel_key(key))
      throw Error(fmt::format("{}: unknown CSEL key \"{}\" (MPICH 4.0.2 aborts on it)", path, key));
    validate_subtree(value, child(path, key));
  }
}

std::string choreo_algorithm(const Collective& c, const std::string& mpich,
                             const std::string& path) {
  for (const Algorithm& a : c.algorithms)
    if (a.mpich == mpich) return std::string(a.name);
  throw Error(fmt::format("{}: {} is not a {} algorithm choreo has; choreo reads {}", path, mpich,
                          c.name, available(c, Library::mpich)));
}

/// N of a key "PREFIX N", which MPICH reads with atoi.
std::optional<std::int64_t> bound(std::string_view key, std::string_view prefix,
                                  const std::string& path) {
  if (!key.starts_with(prefix) || !is_uint(key.substr(prefix.size()))) return std::nullopt;
  const std::int64_t value = std::stoll(std::string(key.substr(prefix.size())));
  if (value > kIntMax)
    throw Error(fmt::format("{}: {} is above the {} MPICH 4.0.2 reads (it parses with atoi)", path,
                            value, kIntMax));
  return value;
}

/// A decision's message-size chain on `ranks` ranks: the keys of `node` from index `first`.
std::vector<SizeRule> parse_size_chain(const Collective& c, int ranks, const ordered_json& node,
                                       const std::string& path, std::size_t first) {
  std::vector<SizeRule> rules;
  std::int64_t from = 0;
  std::size_t index = 0;
  for (const auto& [key, value] : node.items()) {
    if (index < first) {
      ++index;
      continue;
    }
    const std::string here = child(path, key);
    const auto algorithm = leaf_algorithm(value, here);
    if (!algorithm)
      throw Error(
          fmt::format("{}: expected {{\"algorithm=MPIR_...\": {{}}}} under a message "
                      "size key",
                      here));
    rules.push_back(
        {from, choreo_algorithm(c, *algorithm, child(here, "algorithm=" + *algorithm))});
    ++index;
    if (key == "avg_msg_size=any" || key == "total_msg_size=any") {
      if (key == "avg_msg_size=any" && c.mpich_total)
        throw Error(
            fmt::format("{}: MPICH 4.0.2 has no avg_msg_size for {} (it aborts); use "
                        "total_msg_size",
                        here, c.name));
      if (index != node.size())
        throw Error(
            fmt::format("{}: \"{}\" must be the last key; the ones after it are never "
                        "reached (and MPICH aborts)",
                        here, key));
      return rules;
    }
    std::int64_t next = 0;
    if (auto v = bound(key, "avg_msg_size<=", here)) {
      next = *v + 1;
    } else if (auto w = bound(key, "avg_msg_size<", here)) {
      next = *w;
    } else if (auto x = bound(key, "total_msg_size<=", here)) {
      next = *x / ranks + 1;
    } else if (auto y = bound(key, "total_msg_size<", here)) {
      next = ceil_div(*y, ranks);
    } else {
      throw Error(
          fmt::format("{}: choreo reads message-size keys {}_msg_size<=N, <N and =any "
                      "here, not \"{}\"",
                      here, c.mpich_total ? "total" : "avg", key));
    }
    if (key.starts_with("avg_msg_size") && c.mpich_total)
      throw Error(
          fmt::format("{}: MPICH 4.0.2 has no avg_msg_size for {} (it aborts); use "
                      "total_msg_size",
                      here, c.name));
    if (next <= from)
      throw Error(
          fmt::format("{}: this rule is never reached on {} ranks (it ends at or before "
                      "the {} bytes where it would start); sizes must ascend",
                      here, ranks, from));
    from = next;
  }
  throw Error(
      fmt::format("{}: the message-size keys must end with {}_msg_size=any (MPICH "
                  "aborts on a chain without it)",
                  path, c.mpich_total ? "total" : "avg"));
}

bool is_mpich_guard(const Collective& c, std::string_view key) {
  return std::ranges::find(c.mpich_guards, key) != c.mpich_guards.end();
}

/// A single algorithm, or MPICH's stock subtree: what a decided collective's file holds where
/// choreo has no decision.
bool is_mpich_fallback(const Collective& c, const ordered_json& node, const std::string& path) {
  return leaf_algorithm(node, path) || node == mpich_stock_intra(c);
}

/// A comm_size<=N branch: a fallback, or the decision for N (guards, then message sizes).
void parse_comm_branch(const Collective& c, int ranks, const ordered_json& node,
                       const std::string& path, std::vector<CollectiveDecision>& decisions) {
  if (is_mpich_fallback(c, node, path)) return;
  std::size_t guards = 0;
  for (const auto& [key, value] : node.items()) {
    if (!is_mpich_guard(c, key)) break;
    validate_subtree(value, child(path, key));
    ++guards;
  }
  decisions.push_back({std::string(c.name), ranks, parse_size_chain(c, ranks, node, path, guards)});
}

/// The comm_size chain of a decided collective: fallbacks and decisions.
void parse_comm_chain(const Collective& c, const ordered_json& node, const std::string& path,
                      std::size_t first, std::vector<CollectiveDecision>& decisions) {
  std::int64_t previous = 0;
  std::size_t index = 0;
  for (const auto& [key, value] : node.items()) {
    if (index++ < first) continue;
    const std::string here = child(path, key);
    const bool last = index == node.size();
    if (key == "comm_size=any") {
      if (!last)
        throw Error(
            fmt::format("{}: \"comm_size=any\" must be the last key; the ones after it "
                        "are never reached (and MPICH aborts)",
                        here));
      if (is_mpich_fallback(c, value, here)) return;
      if (value.begin().key().starts_with("avg_msg_size") ||
          value.begin().key().starts_with("total_msg_size"))
        throw Error(
            fmt::format("{}: message-size rules under comm_size=any; choreo decisions "
                        "are for one communicator size, write comm_size<=N",
                        here));
      throw Error(
          fmt::format("{}: choreo reads a single algorithm or MPICH 4.0.2's stock {} subtree "
                      "under comm_size=any",
                      here, c.name));
    }
    const auto size = bound(key, "comm_size<=", here);
    if (!size)
      throw Error(fmt::format("{}: choreo reads comm_size<=N and comm_size=any here, not \"{}\"",
                              here, key));
    if (*size <= previous || *size > kIntMax)
      throw Error(
          fmt::format("{}: comm_size<={} is never reached after comm_size<={}; sizes "
                      "must ascend",
                      here, *size, previous));
    previous = *size;
    parse_comm_branch(c, static_cast<int>(*size), value, here, decisions);
  }
  throw Error(
      fmt::format("{}: the comm_size keys must end with comm_size=any (MPICH aborts on "
                  "a chain without it)",
                  path));
}

void parse_intra(const Collective& c, const ordered_json& node, const std::string& path,
                 std::vector<CollectiveDecision>& decisions) {
  if (is_mpich_fallback(c, node, path)) return;
  // Guards in front of the comm_size chain: the shape choreo wrote before it kept MPICH's
  // stock tree (alltoall's chain then sat under is_sendbuf_inplace=no).
  std::size_t guards = 0;
  for (const auto& [key, value] : node.items()) {
    const std::string here = child(path, key);
    if (is_mpich_guard(c, key)) {
      validate_subtree(value, here);
      ++guards;
      continue;
    }
    if (key == "is_sendbuf_inplace=no" && is_mpich_guard(c, "is_sendbuf_inplace=yes")) {
      if (guards + 1 != node.size())
        throw Error(fmt::format("{}: \"is_sendbuf_inplace=no\" must be the last key", here));
      if (!leaf_algorithm(value, here)) parse_comm_chain(c, value, here, 0, decisions);
      return;
    }
    break;
  }
  parse_comm_chain(c, node, path, guards, decisions);
}

}  // namespace

std::vector<CollectiveDecision> parse_mpich_csel_json(std::string_view text) {
  const ordered_json root = parse_without_duplicate_keys(text);
  if (!root.is_object())
    throw Error(fmt::format("$: a CSEL file is a JSON object of \"collective=NAME\" keys, not {}",
                            root.type_name()));
  std::vector<CollectiveDecision> decisions;
  for (const auto& [key, value] : root.items()) {
    const std::string here = child("$", key);
    if (!key.starts_with("collective="))
      throw Error(fmt::format("{}: the top-level keys of a CSEL file are collective=NAME", here));
    const std::string_view name =
        std::string_view(key).substr(std::string_view("collective=").size());
    const Collective* c = find_collective(name);
    if (c == nullptr) {
      if (!mpich_stock_tree().contains(key))
        throw Error(fmt::format("{}: MPICH 4.0.2 has no collective \"{}\"", here, name));
      validate_subtree(value, here);
      continue;
    }
    if (leaf_algorithm(value, here)) continue;
    for (const auto& [sub, node] : value.items()) {
      const std::string there = child(here, sub);
      if (sub == "comm_type=intra")
        parse_intra(*c, node, there, decisions);
      else if (sub == "comm_type=inter")
        validate_subtree(node, there);
      else
        throw Error(
            fmt::format("{}: choreo reads comm_type=intra and comm_type=inter under a "
                        "collective, not \"{}\"",
                        there, sub));
    }
  }
  sort_decisions(decisions);
  return decisions;
}

// ---------------------------------------------------------------------------------------------
// Which algorithm MPICH 4.0.2 selects (csel.c), and what an exported file changes

namespace {

/// Whether MPIR_Csel_prune decides `key` when the communicator is created (prune_tree): the
/// conditions on the communicator, and =any.
bool csel_decided_at_creation(std::string_view key) {
  return key.starts_with("comm_type=") || key.starts_with("comm_size") ||
         key.starts_with("comm_hierarchy=") || key.starts_with("is_node_consecutive=") ||
         key.starts_with("comm_avg_ppn") || key.ends_with("=any");
}

/// The largest power of two <= p (MPICH's comm_ptr->coll.pof2).
std::int64_t csel_pof2(std::int64_t p) {
  std::int64_t v = 1;
  while (v <= p / 2) v *= 2;
  return v;
}

/// Whether condition `key` holds for `call`; `at_creation`: decided by MPIR_Csel_prune.
bool csel_holds(std::string_view key, const MpichCall& call, const Collective& c, bool at_creation,
                const std::string& path) {
  const std::int64_t p = call.comm_size;
  const std::int64_t b = call.bytes;
  auto undefined = [&](std::string_view what) {
    return Error(fmt::format("{}: MPICH 4.0.2 has no {} for {} (it aborts)", path, what, c.name));
  };
  auto only_for = [&](std::string_view collective, std::string_view what) {
    if (c.name != collective) throw undefined(what);
  };
  if (key.ends_with("=any")) return true;
  if (key == "comm_type=intra") return !call.intercomm;
  if (key == "comm_type=inter") return call.intercomm;
  if (key == "comm_size=pow2") return (p & (p - 1)) == 0;
  if (auto v = bound(key, "comm_size<=", path)) return p <= *v;
  // MPICH 4.0.2 prunes comm_size<N as <, but tests it as <= in MPIR_Csel_search.
  if (auto v = bound(key, "comm_size<", path)) return at_creation ? p < *v : p <= *v;
  if (key == "comm_hierarchy=parent") return call.node_hierarchy;
  if (key.starts_with("comm_hierarchy=")) return !call.node_hierarchy;  // node_roots, node, flat
  if (key == "is_multi_threaded=yes") return false;  // choreo's calls: MPI_THREAD_SINGLE
  if (key == "is_multi_threaded=no") return true;
  if (key.starts_with("avg_msg_size")) {
    if (c.mpich_total) throw undefined("avg_msg_size");
    if (auto v = bound(key, "avg_msg_size<=", path)) return b <= *v;
    if (auto v = bound(key, "avg_msg_size<", path)) return b < *v;
  }
  // total_msg_size: bytes x P for all four (recvcount, count or sendcount x P).
  if (auto v = bound(key, "total_msg_size<=", path)) return b <= *v / p;
  if (auto v = bound(key, "total_msg_size<", path)) return *v > 0 && b <= (*v - 1) / p;
  if (key.starts_with("count")) {
    if (c.name == "alltoall") throw undefined("count");  // get_count has no alltoall
    const std::int64_t count = b / call.element_bytes;
    if (auto v = bound(key, "count<=", path)) return count <= *v;
    if (key == "count<pow2") return count < csel_pof2(p);
  }
  if (key == "is_commutative=yes" || key == "is_commutative=no") {
    only_for("allreduce", "is_commutative");
    return call.commutative == key.ends_with("yes");
  }
  if (key == "is_op_built_in=yes" || key == "is_op_built_in=no") {
    only_for("allreduce", "is_op_built_in");
    return call.builtin_op == key.ends_with("yes");
  }
  if (key == "is_sendbuf_inplace=yes" || key == "is_sendbuf_inplace=no") {
    only_for("alltoall", "is_sendbuf_inplace");
    return call.in_place == key.ends_with("yes");
  }
  throw Error(fmt::format("{}: choreo does not model the CSEL condition \"{}\"", path, key));
}

/// The algorithm MPICH selects in `node` for `call`: the first condition that holds, in order,
/// down to an algorithm= leaf. `at_creation` turns false at the first condition on the call.
std::string csel_walk(const ordered_json& node, const MpichCall& call, const Collective& c,
                      bool& at_creation, const std::string& path) {
  if (auto algorithm = leaf_algorithm(node, path)) return *algorithm;
  for (const auto& [key, value] : node.items()) {
    if (!known_csel_key(key))
      throw Error(fmt::format("{}: unknown CSEL key \"{}\" (MPICH 4.0.2 aborts on it)", path, key));
    at_creation = at_creation && csel_decided_at_creation(key);
    const std::string here = child(path, key);
    if (csel_holds(key, call, c, at_creation, here))
      return csel_walk(value, call, c, at_creation, here);
  }
  throw Error(fmt::format(
      "{}: no condition holds for {} of {} B on {} ranks, and nothing follows (MPICH 4.0.2 "
      "aborts)",
      path, c.name, call.bytes, call.comm_size));
}

std::string csel_select_one(const ordered_json& root, const MpichCall& call) {
  const Collective* c = find_collective(call.collective);
  if (c == nullptr)
    throw Error(fmt::format("choreo models MPICH's selection of {}, not '{}'", collective_names(),
                            call.collective));
  if (call.comm_size < 1 || call.bytes < 0 || call.element_bytes < 1)
    throw Error(
        fmt::format("a call needs comm_size >= 1, bytes >= 0 and element_bytes >= 1, not "
                    "{}, {} and {}",
                    call.comm_size, call.bytes, call.element_bytes));
  const std::string key = fmt::format("collective={}", c->name);
  if (!root.is_object() || !root.contains(key))
    throw Error(fmt::format("$: no \"{}\": MPICH 4.0.2 finds no algorithm for {} and aborts", key,
                            c->name));
  bool at_creation = true;  // MPIR_Csel_prune starts afresh in each collective's subtree
  return csel_walk(root.at(key), call, *c, at_creation, child("$", key));
}

/// Where the choice of a subtree can change with the bytes of a call on `ranks` ranks.
void csel_breakpoints(const ordered_json& node, std::int64_t ranks, std::set<std::int64_t>& out) {
  if (!node.is_object()) return;
  for (const auto& [key, value] : node.items()) {
    if (auto v = bound(key, "avg_msg_size<=", key))
      out.insert(*v + 1);
    else if (auto w = bound(key, "avg_msg_size<", key))
      out.insert(*w);
    else if (auto x = bound(key, "total_msg_size<=", key))
      out.insert(*x / ranks + 1);
    else if (auto y = bound(key, "total_msg_size<", key))
      out.insert(ceil_div(*y, ranks));
    else if (auto z = bound(key, "count<=", key))
      out.insert(*z + 1);  // 1-byte elements
    else if (key == "count<pow2")
      out.insert(csel_pof2(ranks));
    csel_breakpoints(value, ranks, out);
  }
}

std::string choreo_name_of(const Collective& c, std::string_view mpich) {
  for (const Algorithm& a : c.algorithms)
    if (a.mpich == mpich) return std::string(a.name);
  return "";
}

}  // namespace

std::vector<std::string> mpich_csel_select(std::string_view csel_json,
                                           const std::vector<MpichCall>& calls) {
  const ordered_json root = parse_without_duplicate_keys(csel_json);
  std::vector<std::string> out;
  out.reserve(calls.size());
  for (const MpichCall& call : calls) out.push_back(csel_select_one(root, call));
  return out;
}

std::vector<DecisionChanges> mpich_export_changes(
    const std::vector<CollectiveDecision>& decisions) {
  const std::vector<Checked> checked = check(decisions, Library::mpich);
  const ordered_json file = parse_without_duplicate_keys(mpich_csel_json(decisions));
  const ordered_json& stock = mpich_stock_tree();
  std::vector<DecisionChanges> out;
  for (const Checked& k : checked) {
    const Collective& c = *k.collective;
    const int ranks = k.decision->comm_size;
    const std::string key = fmt::format("collective={}", c.name);
    std::set<std::int64_t> points = {0};
    csel_breakpoints(stock.at(key), ranks, points);
    csel_breakpoints(file.at(key), ranks, points);
    DecisionChanges changes{std::string(c.name), ranks, {}};
    for (const std::int64_t bytes : points) {
      MpichCall call;
      call.collective = c.name;
      call.comm_size = ranks;
      call.bytes = bytes;
      const std::string chosen = csel_select_one(file, call);
      const std::string was = csel_select_one(stock, call);
      if (!changes.ranges.empty() && changes.ranges.back().library_function == chosen &&
          changes.ranges.back().stock == was)
        continue;
      if (!changes.ranges.empty()) changes.ranges.back().to_bytes = bytes - 1;
      changes.ranges.push_back(
          {bytes, std::nullopt, choreo_name_of(c, chosen), chosen, was, choreo_name_of(c, was)});
    }
    out.push_back(std::move(changes));
  }
  return out;
}

std::vector<DecisionChanges> ompi_export_changes(const std::vector<CollectiveDecision>& decisions) {
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
