// Open MPI coll_tuned rules and MPICH CSEL files from decisions, and back
// (choreo/select/rules_export.hpp). That the libraries obey the files is shown by mpi.rules_*.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/select/rules_export.hpp"
#include "error_of.hpp"

namespace choreo {
namespace {

using ::testing::HasSubstr;
using ordered_json = nlohmann::ordered_json;
using Decisions = std::vector<CollectiveDecision>;

using test::error_of;

std::string ompi_error(const std::string& text) {
  return error_of([&] { parse_ompi_rules(text); });
}
std::string mpich_error(const std::string& text) {
  return error_of([&] { parse_mpich_csel_json(text); });
}

/// The integers of a classic rules file, comments dropped.
std::vector<long> numbers(const std::string& text) {
  std::vector<long> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line.substr(0, line.find('#')));
    for (long n = 0; words >> n;) out.push_back(n);
  }
  return out;
}

const Decisions kSmall = {
    {"allgather", 4, {{0, "bruck"}, {1024, "ring"}}},
    {"bcast", 2, {{0, "binomial"}}},
};

// Several collectives, sizes next to each other and apart, every algorithm both libraries have.
const Decisions kMany = {
    {"allgather", 1, {{0, "ring"}}},
    {"allgather", 4, {{0, "recdbl"}, {1, "bruck"}, {1000, "ring"}}},
    {"allgather", 5, {{0, "bruck"}, {81920, "ring"}}},
    {"allreduce", 8, {{0, "recdbl"}, {65536, "rabenseifner"}}},
    {"alltoall", 3, {{0, "bruck"}, {256, "pairwise"}}},
    {"alltoall", 64, {{0, "pairwise"}}},
    {"bcast", 4, {{0, "binomial"}, {12288, "scatter_allgather"}, {524288, "binomial"}}},
    {"bcast", 1024, {{0, "scatter_allgather"}}},
};

// ---- Open MPI -------------------------------------------------------------------------------

TEST(OmpiRules, SmallCaseExactText) {
  // Classic coll_tuned format: number of collectives; per collective its COLLTYPE id (4.1.4:
  // allgather 0, bcast 7) and number of communicator sizes; per size the size and number of
  // message sizes; per message size "size algorithm faninout segsize". allgather compares
  // bytes x ranks: 1024 B per rank on 4 ranks is 4096. Algorithms: allgather 2 bruck, 4 ring;
  // bcast 6 binomial; 0 = fixed decision, which brackets each decision.
  const std::string expected =
      "# Open MPI coll_tuned dynamic rules, classic format (read by Open MPI 4.1 and 5.0), by "
      "choreo.\n"
      "# Use: mpiexec --mca coll_tuned_use_dynamic_rules 1 --mca "
      "coll_tuned_dynamic_rules_filename FILE\n"
      "# Message sizes are those coll_tuned compares: allgather and alltoall count the bytes of\n"
      "# all ranks (bytes per rank x communicator size), allreduce and bcast the bytes of the\n"
      "# vector or message. A rule is: message_size algorithm fan_in_out segment_size;\n"
      "# algorithm 0 hands the call to Open MPI's fixed decision.\n"
      "2 # collectives\n"
      "0 # collective id: allgather\n"
      "3 # communicator sizes\n"
      "0 # communicators of 0 to 3 ranks: Open MPI's fixed decision\n"
      "1 # message sizes\n"
      "0 0 0 0 # from 0 B: algorithm 0 (fixed decision)\n"
      "4 # communicators of 4 ranks: choreo's decision\n"
      "2 # message sizes\n"
      "0 2 0 0 # from 0 B (0 B from each rank): bruck\n"
      "4096 4 0 0 # from 4096 B (1024 B from each rank): ring\n"
      "5 # communicators of 5 ranks and more: Open MPI's fixed decision\n"
      "1 # message sizes\n"
      "0 0 0 0 # from 0 B: algorithm 0 (fixed decision)\n"
      "7 # collective id: bcast\n"
      "3 # communicator sizes\n"
      "0 # communicators of 0 to 1 ranks: Open MPI's fixed decision\n"
      "1 # message sizes\n"
      "0 0 0 0 # from 0 B: algorithm 0 (fixed decision)\n"
      "2 # communicators of 2 ranks: choreo's decision\n"
      "1 # message sizes\n"
      "0 6 0 0 # from 0 B: binomial\n"
      "3 # communicators of 3 ranks and more: Open MPI's fixed decision\n"
      "1 # message sizes\n"
      "0 0 0 0 # from 0 B: algorithm 0 (fixed decision)\n";
  const std::string text = ompi_rules_text(kSmall);
  EXPECT_EQ(text, expected);
  EXPECT_EQ(numbers(text),
            (std::vector<long>{2,                                // collectives
                               0, 3,                             // allgather, 3 sizes
                               0, 1, 0, 0, 0, 0,                 // 0..3: fixed
                               4, 2, 0, 2, 0, 0, 4096, 4, 0, 0,  // 4: bruck, ring
                               5, 1, 0, 0, 0, 0,                 // 5..: fixed
                               7, 3,                             // bcast, 3 sizes
                               0, 1, 0, 0, 0, 0, 2,    1, 0, 6, 0, 0, 3, 1, 0, 0, 0, 0}));
}

TEST(OmpiRules, SizeConversions) {
  // allgather and alltoall: bytes per rank x ranks; allreduce and bcast: bytes as they are.
  const Decisions d = {{"allgather", 3, {{0, "ring"}, {1000, "bruck"}}},
                       {"allreduce", 3, {{0, "recdbl"}, {1000, "ring"}}},
                       {"alltoall", 3, {{0, "pairwise"}, {1000, "bruck"}}},
                       {"bcast", 3, {{0, "binomial"}, {1000, "scatter_allgather"}}}};
  const std::string text = ompi_rules_text(d);
  EXPECT_THAT(text, HasSubstr("\n3000 2 0 0 # from 3000 B (1000 B from each rank): bruck\n"));
  EXPECT_THAT(text, HasSubstr("\n1000 4 0 0 # from 1000 B: ring\n"));
  EXPECT_THAT(text, HasSubstr("\n3000 3 0 0 # from 3000 B (1000 B to each rank): bruck\n"));
  EXPECT_THAT(text, HasSubstr("\n1000 8 0 0 # from 1000 B: scatter_allgather\n"));
  // Open MPI ids 0 allgather, 2 allreduce, 3 alltoall, 7 bcast; algorithm numbers of 4.1.4.
  EXPECT_THAT(text, HasSubstr("\n2 # collective id: allreduce\n"));
  EXPECT_THAT(text, HasSubstr("\n3 # collective id: alltoall\n"));
  EXPECT_NE(ompi_rules_text({{"allreduce", 2, {{0, "rabenseifner"}}}}).find("\n0 6 0 0 #"),
            std::string::npos);
  EXPECT_NE(ompi_rules_text({{"allgather", 2, {{0, "neighbor"}}}}).find("\n0 5 0 0 #"),
            std::string::npos);
  EXPECT_NE(ompi_rules_text({{"allgather", 2, {{0, "recdbl"}}}}).find("\n0 3 0 0 #"),
            std::string::npos);
}

TEST(OmpiRules, RoundTrip) {
  EXPECT_EQ(parse_ompi_rules(ompi_rules_text(kSmall)), kSmall);
  EXPECT_EQ(parse_ompi_rules(ompi_rules_text(kMany)), kMany);
  Decisions with_ring = {{"allreduce", 6, {{0, "ring"}, {7, "recdbl"}, {8, "rabenseifner"}}},
                         {"allgather", 6, {{0, "neighbor"}}}};
  Decisions sorted = {with_ring[1], with_ring[0]};
  EXPECT_EQ(parse_ompi_rules(ompi_rules_text(with_ring)), sorted);
}

TEST(OmpiRules, ReadsHandWrittenFiles) {
  // No comments, a segment size, no fallbacks, per-rank sizes that do not divide evenly:
  // 4097 B on 4 ranks is reached from ceil(4097 / 4) = 1025 B per rank.
  const auto d = parse_ompi_rules("1\n3\n1\n4\n2\n0 3 0 0\n4097 2 0 8192\n");
  EXPECT_EQ(d, (Decisions{{"alltoall", 4, {{0, "bruck"}, {1025, "pairwise"}}}}));
  // Comments anywhere, several rules on one line, only fallbacks.
  EXPECT_EQ(parse_ompi_rules("# nothing\n1 # one\n7 2 0 1 0 0 0 0 # fixed\n8 1 0 0 0 0\n"),
            Decisions{});
  EXPECT_EQ(parse_ompi_rules("0\n"), Decisions{});
  EXPECT_EQ(parse_ompi_rules("1 7 1 16 2 0 6 0 0 100 8 0 0"),
            (Decisions{{"bcast", 16, {{0, "binomial"}, {100, "scatter_allgather"}}}}));
}

TEST(OmpiRules, RejectsMalformedFilesWithTheLine) {
  EXPECT_THAT(ompi_error(""), HasSubstr("line 1: the file ends where the number of collectives"));
  EXPECT_THAT(ompi_error("1\n"), HasSubstr("line 1: the file ends where the id of collective 1"));
  EXPECT_THAT(ompi_error("1\n0\n1\n4\n2\n0 2 0 0\n1024 4 0"),
              HasSubstr("line 7: the file ends where the segment size of message rule 2 of "
                        "allgather on 4 ranks should be"));
  EXPECT_THAT(ompi_error("abc"), HasSubstr("line 1: unexpected 'a'"));
  EXPECT_THAT(ompi_error("1\n0\n1\n4\n1\n0 -2 0 0\n"), HasSubstr("line 6: unexpected '-'"));
  EXPECT_THAT(ompi_error("1\n0\n1\n4\n1\n0 0x2 0 0\n"), HasSubstr("line 6: '0x' is not a number"));
  EXPECT_THAT(ompi_error("1\n\x01"), HasSubstr("line 2: unexpected '\\x01'"));
  EXPECT_THAT(ompi_error("99999999999999999999"), HasSubstr("does not fit 64 bits"));
  EXPECT_THAT(ompi_error("rule-file-version-2\n1\n"),
              HasSubstr("line 2: the file ends where the id of collective 1 of 1 should be"));
  EXPECT_THAT(ompi_error("# choreo\nrule-file-version-2\n0\n"),
              HasSubstr("line 2: a rule-file-version line must be the first bytes of the file"));
  EXPECT_THAT(ompi_error(" rule-file-version-2\n0\n"),
              HasSubstr("line 1: a rule-file-version line must be the first bytes"));
  EXPECT_THAT(ompi_error("rule-file-version-3\n0\n"),
              HasSubstr("line 1: 'rule-file-version-3': choreo reads versions 1 (classic) and 2"));
  EXPECT_THAT(ompi_error("rule-file-version-\n0\n"), HasSubstr("choreo reads versions 1"));
  EXPECT_THAT(ompi_error("1\n0\n1\n4\n1\n0 010 0 0\n"),
              HasSubstr("line 6: 010 has a leading zero, which Open MPI reads as an octal number"));
  EXPECT_THAT(ompi_error("23\n"), HasSubstr("line 1: 23 collectives; Open MPI 4.1.4 has 22"));
  EXPECT_THAT(ompi_error("1\n22\n"), HasSubstr("line 2: collective id 22 is not one of"));
  EXPECT_THAT(ompi_error("1\n6\n"),
              HasSubstr("line 2: collective id 6 (barrier) is not one choreo decides"));
  EXPECT_THAT(ompi_error("2\n0 1 4 1 0 2 0 0\n0 1 4 1 0 2 0 0\n"),
              HasSubstr("line 3: collective 0 (allgather) appears a second time"));
  EXPECT_THAT(ompi_error("1\n0\n2\n8\n1\n0 2 0 0\n4\n1\n0 2 0 0\n"),
              HasSubstr("line 7: communicator size 4 of allgather is not above the size 8"));
  EXPECT_THAT(ompi_error("1\n0\n1\n4\n0\n"),
              HasSubstr("line 5: allgather on 4 ranks has no message size rules"));
  EXPECT_THAT(ompi_error("1\n0\n1\n4\n1\n5 2 0 0\n"),
              HasSubstr("line 6: the first message size of allgather on 4 ranks is 5; Open MPI "
                        "needs it to be 0"));
  EXPECT_THAT(ompi_error("1\n7\n1\n4\n1\n0 7 0 0\n"),
              HasSubstr("line 6: bcast algorithm 7 (knomial) has no choreo generator; choreo "
                        "reads binomial (6) and scatter_allgather (8)"));
  EXPECT_THAT(ompi_error("1\n7\n1\n4\n1\n0 12 0 0\n"), HasSubstr("not an Open MPI 4.1.4 one"));
  EXPECT_THAT(ompi_error("1\n0\n1\n4\n2\n0 0 0 0\n100 2 0 0\n"),
              HasSubstr("line 6: algorithm 0 (Open MPI's fixed decision) in message rule 1"));
  EXPECT_THAT(ompi_error("1\n2\n1\n4\n2\n0 3 0 0\n0 4 0 0\n"),
              HasSubstr("line 7: message size 0 of allreduce on 4 ranks is not above"));
  // 1 B and 2 B of all ranks on 4 ranks are both reached from 1 B per rank.
  EXPECT_THAT(ompi_error("1\n0\n1\n4\n3\n0 2 0 0\n1 4 0 0\n2 3 0 0\n"),
              HasSubstr("line 8: message size 2 of allgather on 4 ranks is not above the rule "
                        "before it once divided by the communicator size"));
  EXPECT_THAT(ompi_error("1\n3\n1\n0\n1\n0 2 0 0\n"), HasSubstr("alltoall on 0 ranks"));
  EXPECT_THAT(ompi_error("1\n2\n1\n0\n1\n0 3 0 0\n"), HasSubstr("allreduce on 0 ranks"));
  EXPECT_THAT(ompi_error("1\n0\n1\n4\n1\n0 2 0 0\n5\n"),
              HasSubstr("line 7: more numbers after the 1 collectives"));
}

// Open MPI 5.0's reader of coll_tuned rules files, written here from the parser's rules
// (ompi_coll_tuned_read_rules_config_file in ompi/mca/coll/tuned/coll_tuned_dynamic_file.c of
// v5.0.x, with ompi_coll_base_file_getnext_long and ompi_coll_base_file_peek_next_char_isdigit
// of coll_base_util.c), independently of choreo's reader:
//   fscanf(f, "rule-file-version-%u", &version) at the first byte, else version 1;
//   numbers: fscanf("%li"), other characters skipped one by one, '#' to the end of the line;
//   per rule: message size, algorithm, fan-in/out, segment size, and when version > 1 and the
//   next character other than space or tab is a digit, max_requests.
// It returns every rule as {collective id, comm size, message size, algorithm, fan-in/out,
// segment size, max_requests (-1: not given)}.
std::vector<std::vector<long>> open_mpi_5_reads(const std::string& text) {
  std::size_t at = 0;
  long version = 1;
  const std::string prefix = "rule-file-version-";
  if (text.compare(0, prefix.size(), prefix) == 0) {
    at = prefix.size();
    version = 0;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])))
      version = version * 10 + (text[at++] - '0');
  }
  auto next = [&]() -> long {
    while (at < text.size()) {
      const char ch = text[at];
      if (std::isdigit(static_cast<unsigned char>(ch))) {
        long value = 0;
        while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])))
          value = value * 10 + (text[at++] - '0');
        return value;
      }
      if (ch == '#')
        while (at < text.size() && text[at] != '\n') ++at;
      else
        ++at;
    }
    ADD_FAILURE() << "the file ended early";
    return -1;
  };
  auto digit_follows = [&] {
    std::size_t i = at;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
  };
  std::vector<std::vector<long>> rules;
  const long ncol = next();
  for (long c = 0; c < ncol; ++c) {
    const long id = next();
    const long ncomm = next();
    for (long k = 0; k < ncomm; ++k) {
      const long comm = next();
      const long nmsg = next();
      for (long m = 0; m < nmsg; ++m) {
        std::vector<long> rule = {id, comm, next(), next(), next(), next()};
        rule.push_back(version > 1 && digit_follows() ? next() : -1);
        rules.push_back(rule);
      }
    }
  }
  return rules;
}

TEST(OmpiRules, Version2ExactText) {
  // Open MPI 5.0's format: "rule-file-version-2" as the first bytes (its reader looks nowhere
  // else), then the classic numbers with a fifth number per rule, max_requests, on the rule's
  // line. 0 is Open MPI's default (no limit).
  const std::string expected =
      "rule-file-version-2\n"
      "# Open MPI coll_tuned dynamic rules, version 2 format (read by Open MPI 5.0, not 4.1), by "
      "choreo.\n"
      "# Use: mpiexec --mca coll_tuned_use_dynamic_rules 1 --mca "
      "coll_tuned_dynamic_rules_filename FILE\n"
      "# Message sizes are those coll_tuned compares: allgather and alltoall count the bytes of\n"
      "# all ranks (bytes per rank x communicator size), allreduce and bcast the bytes of the\n"
      "# vector or message. A rule is: message_size algorithm fan_in_out segment_size\n"
      "# max_requests (0: no limit); algorithm 0 hands the call to Open MPI's fixed decision.\n"
      "2 # collectives\n"
      "0 # collective id: allgather\n"
      "3 # communicator sizes\n"
      "0 # communicators of 0 to 3 ranks: Open MPI's fixed decision\n"
      "1 # message sizes\n"
      "0 0 0 0 0 # from 0 B: algorithm 0 (fixed decision)\n"
      "4 # communicators of 4 ranks: choreo's decision\n"
      "2 # message sizes\n"
      "0 2 0 0 0 # from 0 B (0 B from each rank): bruck\n"
      "4096 4 0 0 0 # from 4096 B (1024 B from each rank): ring\n"
      "5 # communicators of 5 ranks and more: Open MPI's fixed decision\n"
      "1 # message sizes\n"
      "0 0 0 0 0 # from 0 B: algorithm 0 (fixed decision)\n"
      "7 # collective id: bcast\n"
      "3 # communicator sizes\n"
      "0 # communicators of 0 to 1 ranks: Open MPI's fixed decision\n"
      "1 # message sizes\n"
      "0 0 0 0 0 # from 0 B: algorithm 0 (fixed decision)\n"
      "2 # communicators of 2 ranks: choreo's decision\n"
      "1 # message sizes\n"
      "0 6 0 0 0 # from 0 B: binomial\n"
      "3 # communicators of 3 ranks and more: Open MPI's fixed decision\n"
      "1 # message sizes\n"
      "0 0 0 0 0 # from 0 B: algorithm 0 (fixed decision)\n";
  const std::string text = ompi_rules_text(kSmall, OmpiRulesFormat::v2);
  EXPECT_EQ(text, expected);
  // What Open MPI 5.0 makes of it, rule by rule: {id, comm size, message size, algorithm,
  // fan-in/out, segment size, max_requests}.
  const std::vector<std::vector<long>> table = {
      {0, 0, 0, 0, 0, 0, 0}, {0, 4, 0, 2, 0, 0, 0}, {0, 4, 4096, 4, 0, 0, 0}, {0, 5, 0, 0, 0, 0, 0},
      {7, 0, 0, 0, 0, 0, 0}, {7, 2, 0, 6, 0, 0, 0}, {7, 3, 0, 0, 0, 0, 0}};
  EXPECT_EQ(open_mpi_5_reads(text), table);
  // The classic file reads the same in Open MPI 5.0, without max_requests.
  auto classic = table;
  for (auto& rule : classic) rule.back() = -1;
  EXPECT_EQ(open_mpi_5_reads(ompi_rules_text(kSmall)), classic);
  EXPECT_EQ(open_mpi_5_reads(ompi_rules_text(kMany, OmpiRulesFormat::v2)).size(),
            open_mpi_5_reads(ompi_rules_text(kMany)).size());
}

TEST(OmpiRules, Version2RoundTripAndHandWrittenFiles) {
  EXPECT_EQ(parse_ompi_rules(ompi_rules_text(kSmall, OmpiRulesFormat::v2)), kSmall);
  EXPECT_EQ(parse_ompi_rules(ompi_rules_text(kMany, OmpiRulesFormat::v2)), kMany);
  // max_requests given for some rules and not others; a comment right after the segment size.
  const std::string mixed =
      "rule-file-version-2\n1\n3\n1\n4\n3\n"
      "0 3 0 0 16\n"
      "4097 2 0 8192#no max_requests\n"
      "8192 2 0 0\t\t4\n";
  EXPECT_EQ(parse_ompi_rules(mixed),
            (Decisions{{"alltoall", 4, {{0, "bruck"}, {1025, "pairwise"}, {2048, "pairwise"}}}}));
  EXPECT_EQ(open_mpi_5_reads(mixed),
            (std::vector<std::vector<long>>{
                {3, 4, 0, 3, 0, 0, 16}, {3, 4, 4097, 2, 0, 8192, -1}, {3, 4, 8192, 2, 0, 0, 4}}));
  // Two rules on one line: version 1 reads eight numbers as two rules; version 2 takes the
  // fifth as max_requests, as Open MPI 5.0 does, and then the file ends inside the second rule.
  const std::string body = "1\n7\n1\n16\n2\n0 6 0 0 100 8 0 0\n";
  EXPECT_EQ(parse_ompi_rules(body),
            (Decisions{{"bcast", 16, {{0, "binomial"}, {100, "scatter_allgather"}}}}));
  EXPECT_EQ(parse_ompi_rules("rule-file-version-1\n" + body), parse_ompi_rules(body));
  EXPECT_THAT(ompi_error("rule-file-version-2\n" + body),
              HasSubstr("the file ends where the segment size of message rule 2 of bcast on 16 "
                        "ranks should be"));
  EXPECT_EQ(open_mpi_5_reads("rule-file-version-2\n" + body + "0\n"),
            (std::vector<std::vector<long>>{{7, 16, 0, 6, 0, 0, 100}, {7, 16, 8, 0, 0, 0, -1}}));
  // A line break or a carriage return ends the rule: the next number is the next rule.
  EXPECT_EQ(parse_ompi_rules("rule-file-version-2\n1\n7\n1\n16\n2\n0 6 0 0\r\n100 8 0 0 1\n"),
            (Decisions{{"bcast", 16, {{0, "binomial"}, {100, "scatter_allgather"}}}}));
}

TEST(OmpiRules, ExportChanges) {
  const auto changes = ompi_export_changes({{"allgather", 4, {{0, "bruck"}, {1024, "ring"}}}});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].collective, "allgather");
  EXPECT_EQ(changes[0].comm_size, 4);
  ASSERT_EQ(changes[0].ranges.size(), 2u);
  EXPECT_EQ(changes[0].ranges[0].from_bytes, 0);
  EXPECT_EQ(changes[0].ranges[0].to_bytes, 1023);
  EXPECT_EQ(changes[0].ranges[0].algorithm, "bruck");
  EXPECT_EQ(changes[0].ranges[0].library_function, "2 (bruck)");
  EXPECT_EQ(changes[0].ranges[1].from_bytes, 1024);
  EXPECT_EQ(changes[0].ranges[1].to_bytes, std::nullopt);
  EXPECT_EQ(changes[0].ranges[1].library_function, "4 (ring)");
  EXPECT_EQ(changes[0].ranges[1].stock, "");
}

// ---- MPICH ----------------------------------------------------------------------------------

const ordered_json& csel_stock() {
  static const ordered_json tree = ordered_json::parse(mpich_stock_csel_json());
  return tree;
}

const ordered_json& csel_stock_intra(const std::string& name) {
  return csel_stock().at("collective=" + name).at("comm_type=intra");
}

TEST(MpichCsel, StockTreeIsMpichs) {
  // MPICH 4.0.2's MPII_coll_generic_json, pretty-printed: 44 collectives (blocking, nonblocking,
  // neighborhood), in MPICH's order. mpi.rules_mpich_stock_tree compares it with the installed
  // libmpich byte for byte (whitespace removed).
  const ordered_json& tree = csel_stock();
  ASSERT_EQ(tree.size(), 44u);
  EXPECT_EQ(tree.begin().key(), "collective=bcast");
  ASSERT_EQ(mpi_collectives().size(), 22u);  // MPI's blocking collectives
  for (const std::string_view name : mpi_collectives()) {
    EXPECT_TRUE(tree.contains("collective=" + std::string(name))) << name;
    EXPECT_TRUE(tree.contains("collective=i" + std::string(name))) << name;  // nonblocking
  }
  EXPECT_EQ(csel_stock_intra("allgather"), ordered_json::parse(R"({
      "comm_size=pow2": {
        "total_msg_size<524288": {"algorithm=MPIR_Allgather_intra_recursive_doubling": {}},
        "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}},
      "comm_size=any": {
        "total_msg_size<81920": {"algorithm=MPIR_Allgather_intra_brucks": {}},
        "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}})"));
  // choreo's reader accepts MPICH's own file, which decides nothing choreo reads.
  EXPECT_EQ(parse_mpich_csel_json(mpich_stock_csel_json()), Decisions{});
  std::string no_space;
  for (const char ch : mpich_stock_csel_json())
    if (!std::isspace(static_cast<unsigned char>(ch))) no_space += ch;
  EXPECT_EQ(no_space.size(), 14522u);  // the length of the string in libmpich.so.12
}

TEST(MpichCsel, SmallCaseExactText) {
  // CSEL: nested objects of conditions tried in order, leaves {"algorithm=NAME": {}}. The file
  // is MPICH's stock tree; only allgather's and bcast's comm_type=intra change. allgather
  // compares total_msg_size (recv bytes x ranks): below 1024 B per rank on 4 ranks is
  // total_msg_size<=4095. Other communicator sizes keep the stock subtree.
  const std::string text = mpich_csel_json(kSmall);
  const std::string allgather_decision =
      "      \"comm_size<=4\": {\n"
      "        \"total_msg_size<=4095\": {\n"
      "          \"algorithm=MPIR_Allgather_intra_brucks\": {}\n"
      "        },\n"
      "        \"total_msg_size=any\": {\n"
      "          \"algorithm=MPIR_Allgather_intra_ring\": {}\n"
      "        }\n"
      "      },\n";
  EXPECT_NE(text.find(allgather_decision), std::string::npos);
  const ordered_json file = ordered_json::parse(text);
  ordered_json allgather = ordered_json::object();
  allgather["comm_size<=3"] = csel_stock_intra("allgather");
  allgather["comm_size<=4"] = ordered_json::parse(R"({
      "total_msg_size<=4095": {"algorithm=MPIR_Allgather_intra_brucks": {}},
      "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}})");
  allgather["comm_size=any"] = csel_stock_intra("allgather");
  EXPECT_EQ(file.at("collective=allgather").at("comm_type=intra"), allgather);
  ordered_json bcast = ordered_json::object();
  bcast["comm_size<=1"] = csel_stock_intra("bcast");
  bcast["comm_size<=2"] =
      ordered_json::parse(R"({"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}})");
  bcast["comm_size=any"] = csel_stock_intra("bcast");
  EXPECT_EQ(file.at("collective=bcast").at("comm_type=intra"), bcast);
  // Everything else, inter-communicators included, is the stock tree.
  ordered_json rest = file;
  rest["collective=allgather"]["comm_type=intra"] = csel_stock_intra("allgather");
  rest["collective=bcast"]["comm_type=intra"] = csel_stock_intra("bcast");
  EXPECT_EQ(rest, csel_stock());
  EXPECT_EQ(text.back(), '\n');
}

TEST(MpichCsel, KeepsTheStockTreeByteForByte) {
  // No decision: MPICH's own tree, exactly as embedded.
  EXPECT_EQ(mpich_csel_json({}), std::string(mpich_stock_csel_json()));
  // With decisions, the text of every collective choreo leaves alone is the stock text: the
  // lines before the first decided collective and after the last one are identical.
  const std::string stock_text(mpich_stock_csel_json());
  const std::string text = mpich_csel_json({{"bcast", 4, {{0, "binomial"}}}});
  const std::size_t end_of_bcast = stock_text.find("\n  \"collective=allreduce\"");
  ASSERT_NE(end_of_bcast, std::string::npos);
  const std::string after = stock_text.substr(end_of_bcast);
  ASSERT_GT(text.size(), after.size());
  EXPECT_EQ(text.substr(text.size() - after.size()), after);
  EXPECT_EQ(text.substr(0, 30), stock_text.substr(0, 30));
  // And per collective, for many decisions at once.
  const ordered_json file = ordered_json::parse(mpich_csel_json(kMany));
  ASSERT_EQ(file.size(), csel_stock().size());
  auto f = file.begin();
  for (auto s = csel_stock().begin(); s != csel_stock().end(); ++s, ++f) {
    EXPECT_EQ(f.key(), s.key());  // same order
    const bool decided = s.key() == "collective=allgather" || s.key() == "collective=allreduce" ||
                         s.key() == "collective=alltoall" || s.key() == "collective=bcast";
    if (!decided) {
      EXPECT_EQ(f.value(), s.value()) << s.key();
    } else {
      EXPECT_EQ(f.value().at("comm_type=inter"), s.value().at("comm_type=inter")) << s.key();
      EXPECT_EQ(f.value().size(), s.value().size()) << s.key();
    }
  }
}

TEST(MpichCsel, SizeConversionsAndGuards) {
  const std::string text =
      mpich_csel_json({{"allreduce", 4, {{0, "recdbl"}, {2048, "rabenseifner"}}},
                       {"alltoall", 4, {{0, "bruck"}, {256, "pairwise"}}},
                       {"bcast", 1, {{0, "binomial"}, {12288, "scatter_allgather"}}}});
  // avg_msg_size for allreduce (vector bytes), alltoall (bytes per destination), bcast. Calls
  // choreo's algorithms cannot take lead to the stock subtree.
  const ordered_json file = ordered_json::parse(text);
  ordered_json allreduce = ordered_json::object();
  allreduce["comm_size<=3"] = csel_stock_intra("allreduce");
  allreduce["comm_size<=4"] = ordered_json::object();
  allreduce["comm_size<=4"]["is_commutative=no"] = csel_stock_intra("allreduce");
  allreduce["comm_size<=4"]["is_op_built_in=no"] = csel_stock_intra("allreduce");
  allreduce["comm_size<=4"]["count<pow2"] = csel_stock_intra("allreduce");
  allreduce["comm_size<=4"]["avg_msg_size<=2047"] =
      ordered_json::parse(R"({"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}})");
  allreduce["comm_size<=4"]["avg_msg_size=any"] =
      ordered_json::parse(R"({"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}})");
  allreduce["comm_size=any"] = csel_stock_intra("allreduce");
  EXPECT_EQ(file.at("collective=allreduce").at("comm_type=intra"), allreduce);
  ordered_json alltoall = ordered_json::object();
  alltoall["comm_size<=3"] = csel_stock_intra("alltoall");
  alltoall["comm_size<=4"] = ordered_json::object();
  alltoall["comm_size<=4"]["is_sendbuf_inplace=yes"] = csel_stock_intra("alltoall");
  alltoall["comm_size<=4"]["avg_msg_size<=255"] =
      ordered_json::parse(R"({"algorithm=MPIR_Alltoall_intra_brucks": {}})");
  alltoall["comm_size<=4"]["avg_msg_size=any"] =
      ordered_json::parse(R"({"algorithm=MPIR_Alltoall_intra_pairwise": {}})");
  alltoall["comm_size=any"] = csel_stock_intra("alltoall");
  EXPECT_EQ(file.at("collective=alltoall").at("comm_type=intra"), alltoall);
  ordered_json bcast = ordered_json::object();
  bcast["comm_size<=1"] = ordered_json::parse(R"({
      "avg_msg_size<=12287": {"algorithm=MPIR_Bcast_intra_binomial": {}},
      "avg_msg_size=any": {
        "algorithm=MPIR_Bcast_intra_scatter_recursive_doubling_allgather": {}}})");
  bcast["comm_size=any"] = csel_stock_intra("bcast");
  EXPECT_EQ(file.at("collective=bcast").at("comm_type=intra"), bcast);
}

TEST(MpichCsel, RoundTrip) {
  EXPECT_EQ(parse_mpich_csel_json(mpich_csel_json(kSmall)), kSmall);
  EXPECT_EQ(parse_mpich_csel_json(mpich_csel_json(kMany)), kMany);
  EXPECT_EQ(parse_mpich_csel_json(mpich_csel_json({})), Decisions{});
}

TEST(MpichCsel, ReadsTheShapeOfEarlierChoreo) {
  // Before choreo kept MPICH's stock tree, it wrote single fallback algorithms and put the
  // guards in front of the comm_size chain (alltoall's chain under is_sendbuf_inplace=no).
  const auto d = parse_mpich_csel_json(R"({
    "collective=allreduce": {"comm_type=intra": {
      "is_commutative=no": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
      "is_op_built_in=no": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
      "count<pow2": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
      "comm_size<=3": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
      "comm_size<=4": {
        "avg_msg_size<=2047": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
        "avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}},
      "comm_size=any": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}}},
    "collective=alltoall": {"comm_type=intra": {
      "is_sendbuf_inplace=yes": {
        "algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
      "is_sendbuf_inplace=no": {
        "comm_size<=4": {
          "avg_msg_size<=255": {"algorithm=MPIR_Alltoall_intra_brucks": {}},
          "avg_msg_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}},
        "comm_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}}}},
    "collective=barrier": {"comm_type=intra": {"algorithm=MPIR_Barrier_intra_dissemination": {}}}
  })");
  EXPECT_EQ(d, (Decisions{{"allreduce", 4, {{0, "recdbl"}, {2048, "rabenseifner"}}},
                          {"alltoall", 4, {{0, "bruck"}, {256, "pairwise"}}}}));
}

/// What MPICH 4.0.2 runs for one call under a CSEL tree (choreo's model of csel.c).
std::string csel_runs(std::string_view json, MpichCall call) {
  return mpich_csel_select(json, {std::move(call)}).front();
}

MpichCall csel_call(const std::string& collective, int ranks, std::int64_t bytes) {
  MpichCall c;
  c.collective = collective;
  c.comm_size = ranks;
  c.bytes = bytes;
  return c;
}

TEST(MpichCsel, SelectsAsMpichDoes) {
  const std::string_view s = mpich_stock_csel_json();
  // allgather: total_msg_size = bytes x P; pow2 sizes take recursive doubling below 512 KiB.
  EXPECT_EQ(csel_runs(s, csel_call("allgather", 4, 131071)),
            "MPIR_Allgather_intra_recursive_doubling");
  EXPECT_EQ(csel_runs(s, csel_call("allgather", 4, 131072)), "MPIR_Allgather_intra_ring");
  EXPECT_EQ(csel_runs(s, csel_call("allgather", 3, 27306)), "MPIR_Allgather_intra_brucks");
  EXPECT_EQ(csel_runs(s, csel_call("allgather", 3, 27307)), "MPIR_Allgather_intra_ring");
  MpichCall inter = csel_call("allgather", 3, 100);
  inter.intercomm = true;
  EXPECT_EQ(csel_runs(s, inter), "MPIR_Allgather_inter_local_gather_remote_bcast");
  // bcast: below 8 ranks binomial (smp for 0 B when ranks share nodes), comm_size<8 decided
  // when the communicator is created, so 8 ranks take the pow2 branch.
  EXPECT_EQ(csel_runs(s, csel_call("bcast", 4, 0)), "MPIR_Bcast_intra_smp");
  MpichCall flat = csel_call("bcast", 4, 0);
  flat.node_hierarchy = false;
  EXPECT_EQ(csel_runs(s, flat), "MPIR_Bcast_intra_binomial");
  EXPECT_EQ(csel_runs(s, csel_call("bcast", 4, 1 << 20)), "MPIR_Bcast_intra_binomial");
  EXPECT_EQ(csel_runs(s, csel_call("bcast", 8, 12288)), "MPIR_Bcast_intra_binomial");
  EXPECT_EQ(csel_runs(s, csel_call("bcast", 8, 12289)),
            "MPIR_Bcast_intra_scatter_recursive_doubling_allgather");
  EXPECT_EQ(csel_runs(s, csel_call("bcast", 8, 524289)), "MPIR_Bcast_intra_scatter_ring_allgather");
  EXPECT_EQ(csel_runs(s, csel_call("bcast", 9, 12289)), "MPIR_Bcast_intra_scatter_ring_allgather");
  // alltoall: comm_size<8 sits below is_sendbuf_inplace, a condition on the call, so MPICH
  // 4.0.2 tests it at the call, as <=: 8 ranks take the small-communicator branch.
  EXPECT_EQ(csel_runs(s, csel_call("alltoall", 8, 256)), "MPIR_Alltoall_intra_scattered");
  EXPECT_EQ(csel_runs(s, csel_call("alltoall", 9, 256)), "MPIR_Alltoall_intra_brucks");
  EXPECT_EQ(csel_runs(s, csel_call("alltoall", 9, 257)), "MPIR_Alltoall_intra_scattered");
  EXPECT_EQ(csel_runs(s, csel_call("alltoall", 4, 32769)), "MPIR_Alltoall_intra_pairwise");
  MpichCall in_place = csel_call("alltoall", 4, 100);
  in_place.in_place = true;
  EXPECT_EQ(csel_runs(s, in_place), "MPIR_Alltoall_intra_pairwise_sendrecv_replace");
  // allreduce: recursive doubling up to 8 B, then reduce-scatter/allgather for built-in ops
  // with count >= the largest power of two <= P.
  EXPECT_EQ(csel_runs(s, csel_call("allreduce", 4, 8)), "MPIR_Allreduce_intra_recursive_doubling");
  EXPECT_EQ(csel_runs(s, csel_call("allreduce", 4, 9)),
            "MPIR_Allreduce_intra_reduce_scatter_allgather");
  EXPECT_EQ(csel_runs(s, csel_call("allreduce", 4, 0)), "MPIR_Allreduce_intra_smp");
  MpichCall doubles = csel_call("allreduce", 4, 24);
  doubles.element_bytes = 8;  // 3 elements < 4
  EXPECT_EQ(csel_runs(s, doubles), "MPIR_Allreduce_intra_recursive_doubling");
  MpichCall user_op = csel_call("allreduce", 4, 4096);
  user_op.builtin_op = false;
  EXPECT_EQ(csel_runs(s, user_op), "MPIR_Allreduce_intra_recursive_doubling");
  // A file choreo wrote: its decision where it decides.
  const std::string file = mpich_csel_json({{"allgather", 4, {{0, "bruck"}, {1024, "ring"}}}});
  EXPECT_EQ(csel_runs(file, csel_call("allgather", 4, 1023)), "MPIR_Allgather_intra_brucks");
  EXPECT_EQ(csel_runs(file, csel_call("allgather", 4, 1024)), "MPIR_Allgather_intra_ring");
  EXPECT_EQ(csel_runs(file, csel_call("allgather", 3, 1023)), "MPIR_Allgather_intra_brucks");
  EXPECT_EQ(csel_runs(file, csel_call("allgather", 8, 1024)),
            "MPIR_Allgather_intra_recursive_doubling");
  // What MPICH aborts on.
  EXPECT_THAT(error_of([] {
                csel_runs(R"({"collective=allgather": {
                        "avg_msg_size<=100": {"algorithm=MPIR_Allgather_intra_ring": {}},
                        "avg_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}})",
                          csel_call("allgather", 4, 8));
              }),
              HasSubstr("MPICH 4.0.2 has no avg_msg_size for allgather"));
  EXPECT_THAT(error_of([] {
                csel_runs(R"({"collective=allgather": {"comm_size<=2": {
                        "algorithm=MPIR_Allgather_intra_ring": {}}}})",
                          csel_call("allgather", 4, 8));
              }),
              HasSubstr("no condition holds for allgather of 8 B on 4 ranks"));
  EXPECT_THAT(
      error_of([] { csel_runs(R"({"collective=bcast": {}})", csel_call("allgather", 4, 8)); }),
      HasSubstr("no \"collective=allgather\""));
}

TEST(MpichCsel, ExportKeepsStockOutsideTheDecision) {
  // Every call of the four collectives on 1 to 20, 32, 64 and 1024 ranks, at the sizes where
  // some choice changes, intra and inter, in place or not, with and without node hierarchy,
  // with commutative built-in, non-commutative and user-defined ops, 1- and 8-byte elements:
  // the exported file runs choreo's algorithm exactly for the calls its decisions are for,
  // and MPICH's stock choice for every other call.
  const std::string file = mpich_csel_json(kMany);
  std::vector<int> sizes;
  for (int p = 1; p <= 20; ++p) sizes.push_back(p);
  sizes.insert(sizes.end(), {32, 64, 1024});
  std::vector<MpichCall> calls;
  std::vector<std::string> expected_choreo;  // empty: stock
  const std::string_view stock_text = mpich_stock_csel_json();
  for (const char* coll : {"allgather", "allreduce", "alltoall", "bcast"}) {
    for (const int p : sizes) {
      const CollectiveDecision* decision = nullptr;
      for (const auto& d : kMany)
        if (d.collective == coll && d.comm_size == p) decision = &d;
      std::set<std::int64_t> bytes = {0,     1,     2,      3,      7,      8,     9,
                                      24,    255,   256,    257,    2048,   12288, 12289,
                                      32768, 32769, 524288, 524289, 1 << 22};
      for (const std::int64_t total : {81920, 524288})
        for (const std::int64_t b : {total / p - 1, total / p, total / p + 1}) bytes.insert(b);
      if (decision)
        for (const auto& r : decision->rules)
          for (const std::int64_t b : {r.from_bytes - 1, r.from_bytes}) bytes.insert(b);
      for (const std::int64_t b : bytes) {
        if (b < 0) continue;
        for (int variant = 0; variant < 32; ++variant) {
          MpichCall c = csel_call(coll, p, b);
          c.intercomm = (variant & 1) != 0;
          c.node_hierarchy = (variant & 2) != 0;
          c.element_bytes = (variant & 4) != 0 ? 8 : 1;
          if (std::string_view(coll) == "alltoall") c.in_place = (variant & 8) != 0;
          if (std::string_view(coll) == "allreduce") {
            c.commutative = (variant & 8) == 0;
            c.builtin_op = (variant & 16) == 0;
            if (!c.builtin_op && !c.commutative) continue;
          } else if ((variant & 16) != 0) {
            continue;
          }
          std::int64_t pof2 = 1;
          while (pof2 * 2 <= p) pof2 *= 2;
          const bool guarded =
              c.in_place || !c.commutative || !c.builtin_op ||
              (std::string_view(coll) == "allreduce" && b / c.element_bytes < pof2);
          std::string choreo;
          if (decision && !c.intercomm && !guarded)
            for (const auto& r : decision->rules)
              if (r.from_bytes <= b) choreo = r.algorithm;
          calls.push_back(c);
          expected_choreo.push_back(choreo);
        }
      }
    }
  }
  const std::vector<std::string> with_file = mpich_csel_select(file, calls);
  const std::vector<std::string> without = mpich_csel_select(stock_text, calls);
  // choreo's names of MPICH's functions, as in docs/selection.md.
  const std::vector<std::pair<std::string, std::string>> names = {
      {"ring", "MPIR_Allgather_intra_ring"},
      {"bruck", "MPIR_Allgather_intra_brucks"},
      {"recdbl", "MPIR_Allgather_intra_recursive_doubling"},
      {"recdbl", "MPIR_Allreduce_intra_recursive_doubling"},
      {"rabenseifner", "MPIR_Allreduce_intra_reduce_scatter_allgather"},
      {"pairwise", "MPIR_Alltoall_intra_pairwise"},
      {"bruck", "MPIR_Alltoall_intra_brucks"},
      {"binomial", "MPIR_Bcast_intra_binomial"},
      {"scatter_allgather", "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"}};
  std::size_t decided = 0, differ = 0;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const MpichCall& c = calls[i];
    const std::string where = testing::PrintToString(
        std::vector<std::int64_t>{c.comm_size, c.bytes, c.intercomm, c.in_place, c.commutative,
                                  c.builtin_op, c.node_hierarchy, c.element_bytes});
    if (expected_choreo[i].empty()) {
      EXPECT_EQ(with_file[i], without[i]) << c.collective << " " << where;
      continue;
    }
    ++decided;
    differ += with_file[i] != without[i];
    const std::string prefix = c.collective == "allgather"   ? "MPIR_Allgather_"
                               : c.collective == "allreduce" ? "MPIR_Allreduce_"
                               : c.collective == "alltoall"  ? "MPIR_Alltoall_"
                                                             : "MPIR_Bcast_";
    bool found = false;
    for (const auto& [name, function] : names)
      if (name == expected_choreo[i] && function.starts_with(prefix)) {
        EXPECT_EQ(with_file[i], function) << c.collective << " " << where;
        found = true;
      }
    EXPECT_TRUE(found) << expected_choreo[i];
  }
  EXPECT_GT(calls.size(), 40000u);
  EXPECT_GT(decided, 1000u);
  EXPECT_GT(differ, 100u);  // the decisions do change something
}

TEST(MpichCsel, ExportChanges) {
  // allgather on 4 ranks, stock: recursive doubling below 512 KiB in all (128 KiB per rank),
  // then ring.
  const auto changes = mpich_export_changes({{"allgather", 4, {{0, "bruck"}, {1024, "ring"}}}});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].collective, "allgather");
  EXPECT_EQ(changes[0].comm_size, 4);
  const auto& r = changes[0].ranges;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].from_bytes, 0);
  EXPECT_EQ(r[0].to_bytes, 1023);
  EXPECT_EQ(r[0].algorithm, "bruck");
  EXPECT_EQ(r[0].library_function, "MPIR_Allgather_intra_brucks");
  EXPECT_EQ(r[0].stock, "MPIR_Allgather_intra_recursive_doubling");
  EXPECT_EQ(r[0].stock_algorithm, "recdbl");
  EXPECT_EQ(r[1].from_bytes, 1024);
  EXPECT_EQ(r[1].to_bytes, 131071);
  EXPECT_EQ(r[1].algorithm, "ring");
  EXPECT_EQ(r[1].stock_algorithm, "recdbl");
  EXPECT_EQ(r[2].from_bytes, 131072);
  EXPECT_EQ(r[2].to_bytes, std::nullopt);
  EXPECT_EQ(r[2].library_function, r[2].stock);
  // alltoall on 4 ranks: MPICH's stock runs scattered up to 32 KiB, which choreo has not.
  const auto a2a = mpich_export_changes({{"alltoall", 4, {{0, "pairwise"}}}});
  ASSERT_EQ(a2a[0].ranges.size(), 2u);
  EXPECT_EQ(a2a[0].ranges[0].to_bytes, 32768);
  EXPECT_EQ(a2a[0].ranges[0].stock, "MPIR_Alltoall_intra_scattered");
  EXPECT_EQ(a2a[0].ranges[0].stock_algorithm, "");
  EXPECT_EQ(a2a[0].ranges[1].stock_algorithm, "pairwise");
}

TEST(MpichCsel, ReadsTheOtherBoundForms) {
  // total_msg_size<V on 4 ranks: b*4 < 4097 up to 1024 B, so the next rule starts at 1025;
  // avg_msg_size<V: the next rule starts at V.
  const auto d = parse_mpich_csel_json(R"({
    "collective=allgather": {"comm_type=intra": {
      "comm_size<=4": {"total_msg_size<4097": {"algorithm=MPIR_Allgather_intra_brucks": {}},
                       "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}},
      "comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}},
    "collective=bcast": {"comm_type=intra": {
      "comm_size<=8": {"avg_msg_size<100": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                       "total_msg_size<=1599": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                       "avg_msg_size=any": {
                         "algorithm=MPIR_Bcast_intra_scatter_recursive_doubling_allgather": {}}},
      "comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}},
    "collective=barrier": {"comm_hierarchy=parent": {"algorithm=MPIR_Barrier_intra_smp": {}},
                           "comm_hierarchy=any": {"algorithm=MPIR_Barrier_intra_dissemination": {}}}
  })");
  EXPECT_EQ(
      d,
      (Decisions{{"allgather", 4, {{0, "bruck"}, {1025, "ring"}}},
                 {"bcast", 8, {{0, "binomial"}, {100, "binomial"}, {200, "scatter_allgather"}}}}));
}

TEST(MpichCsel, RejectsMalformedFilesWithThePath) {
  const std::string ag = R"({"collective=allgather": {"comm_type=intra": )";
  EXPECT_THAT(mpich_error("{\"collective=allgather\": "), HasSubstr("invalid JSON"));
  EXPECT_THAT(mpich_error("[1, 2]"), HasSubstr("$: a CSEL file is a JSON object"));
  EXPECT_THAT(mpich_error(R"({"collective=barrier": {}, "collective=barrier": {}})"),
              HasSubstr("$: key \"collective=barrier\" appears twice"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {},
      "algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
              HasSubstr("$[\"collective=allgather\"][\"comm_type=intra\"][\"comm_size=any\"]: "
                        "key \"algorithm=MPIR_Allgather_intra_ring\" appears twice"));
  EXPECT_THAT(mpich_error(R"({"comm_size=any": {}})"),
              HasSubstr("$[\"comm_size=any\"]: the top-level keys of a CSEL file are "
                        "collective=NAME"));
  EXPECT_THAT(mpich_error(R"({"collective=foo": {}})"),
              HasSubstr("$[\"collective=foo\"]: MPICH 4.0.2 has no collective \"foo\""));
  EXPECT_THAT(mpich_error(R"({"collective=barrier": {"comm_size<=x": {}}})"),
              HasSubstr("$[\"collective=barrier\"]: unknown CSEL key \"comm_size<=x\""));
  EXPECT_THAT(mpich_error(R"({"collective=barrier": {"comm_type=intra": 3}})"),
              HasSubstr("$[\"collective=barrier\"][\"comm_type=intra\"]: expected a JSON "
                        "object, found number"));
  EXPECT_THAT(mpich_error(R"({"collective=barrier": {"comm_type=intra": {}}})"),
              HasSubstr("an empty object selects nothing"));
  EXPECT_THAT(mpich_error(R"({"collective=barrier": {"algorithm=A": {}, "comm_type=intra": {}}})"),
              HasSubstr("$[\"collective=barrier\"]: an algorithm= key must be alone"));
  EXPECT_THAT(mpich_error(R"({"collective=barrier": {"algorithm=A": {"x": {}}}})"),
              HasSubstr("[\"algorithm=A\"]: the value of \"algorithm=A\" must be {}"));
  EXPECT_THAT(mpich_error(ag + R"({"composition=MPIDI_Allgather_intra_composition_alpha": {}}}})"),
              HasSubstr("composition= names a CH4 composition"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size<=4": {
      "avg_msg_size<=99": {"algorithm=MPIR_Allgather_intra_brucks": {}},
      "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}},
      "comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
              HasSubstr("$[\"collective=allgather\"][\"comm_type=intra\"][\"comm_size<=4\"]"
                        "[\"avg_msg_size<=99\"]: MPICH 4.0.2 has no avg_msg_size for allgather"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size<=4": {
      "total_msg_size<=99": {"algorithm=MPIR_Allgather_intra_brucks": {}}},
      "comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
              HasSubstr("[\"comm_size<=4\"]: the message-size keys must end with "
                        "total_msg_size=any"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size<=4": {
      "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_brucks": {}},
      "total_msg_size<=99": {"algorithm=MPIR_Allgather_intra_ring": {}}},
      "comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
              HasSubstr("[\"total_msg_size=any\"]: \"total_msg_size=any\" must be the last"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size<=4": {
      "total_msg_size<=400": {"algorithm=MPIR_Allgather_intra_brucks": {}},
      "total_msg_size<=401": {"algorithm=MPIR_Allgather_intra_ring": {}},
      "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}},
      "comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
              HasSubstr("[\"total_msg_size<=401\"]: this rule is never reached on 4 ranks"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size<=4": {
      "total_msg_size<=4000000000": {"algorithm=MPIR_Allgather_intra_brucks": {}},
      "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}},
      "comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
              HasSubstr("4000000000 is above the 2147483647 MPICH 4.0.2 reads"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size<=8": {"algorithm=MPIR_Allgather_intra_ring": {}},
      "comm_size<=4": {"algorithm=MPIR_Allgather_intra_ring": {}},
      "comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
              HasSubstr("[\"comm_size<=4\"]: comm_size<=4 is never reached after comm_size<=8"));
  EXPECT_THAT(
      mpich_error(ag + R"({"comm_size<=8": {"algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
      HasSubstr("[\"comm_type=intra\"]: the comm_size keys must end with comm_size=any"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}},
      "comm_size<=8": {"algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
              HasSubstr("\"comm_size=any\" must be the last key"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size=any": {
      "total_msg_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}}}})"),
              HasSubstr("message-size rules under comm_size=any"));
  EXPECT_THAT(mpich_error(ag + R"({"comm_size<4": {"algorithm=MPIR_Allgather_intra_ring": {}},
      "comm_size=any": {"algorithm=MPIR_Allgather_intra_ring": {}}}}})"),
              HasSubstr("choreo reads comm_size<=N and comm_size=any here, not \"comm_size<4\""));
  EXPECT_THAT(mpich_error(R"({"collective=bcast": {"comm_type=intra": {"comm_size<=4": {
      "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}},
      "comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}})"),
              HasSubstr("MPIR_Bcast_intra_scatter_ring_allgather is not a bcast algorithm choreo "
                        "has; choreo reads binomial (MPIR_Bcast_intra_binomial) and "
                        "scatter_allgather (MPIR_Bcast_intra_scatter_recursive_doubling_"
                        "allgather)"));
  EXPECT_THAT(mpich_error(R"({"collective=bcast": {"comm_type=intra": {"comm_size<=4": {
      "count<=5": {"algorithm=MPIR_Bcast_intra_binomial": {}},
      "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
      "comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}})"),
              HasSubstr("[\"count<=5\"]: choreo reads message-size keys avg_msg_size<=N"));
  EXPECT_THAT(mpich_error(R"({"collective=bcast": {"comm_hierarchy=parent": {
      "algorithm=MPIR_Bcast_intra_smp": {}}}})"),
              HasSubstr("choreo reads comm_type=intra and comm_type=inter under a collective"));
}

// ---- Decisions the libraries cannot take --------------------------------------------------

TEST(RulesExport, RejectsBadDecisions) {
  auto both = [](const Decisions& d) {
    return error_of([&] { ompi_rules_text(d); }) + " | " + error_of([&] { mpich_csel_json(d); });
  };
  EXPECT_THAT(both({{"reduce", 4, {{0, "binomial"}}}}),
              HasSubstr("unknown collective 'reduce'; choreo exports allgather, allreduce, "
                        "alltoall and bcast"));
  EXPECT_THAT(both({{"allgather", 0, {{0, "ring"}}}}),
              HasSubstr("comm_size must be 1 to 2147483646"));
  EXPECT_THAT(both({{"allgather", 2147483647, {{0, "ring"}}}}),
              HasSubstr("comm_size must be 1 to 2147483646"));
  EXPECT_THAT(both({{"allgather", 4, {}}}), HasSubstr("no size rules"));
  EXPECT_THAT(both({{"allgather", 4, {{8, "ring"}}}}),
              HasSubstr("the first rule must start at 0 bytes, not 8"));
  EXPECT_THAT(both({{"allgather", 4, {{0, "ring"}, {0, "bruck"}}}}),
              HasSubstr("rule 1 starts at 0 bytes, not above the 0 bytes"));
  EXPECT_THAT(both({{"allgather", 4, {{0, "foo"}}}}),
              HasSubstr("unknown allgather algorithm 'foo'; choreo's are ring, bruck, recdbl and "
                        "neighbor"));
  EXPECT_THAT(both({{"bcast", 4, {{0, "binomial"}}}, {"bcast", 4, {{0, "binomial"}}}}),
              HasSubstr("two decisions for bcast on 4 ranks"));
  EXPECT_THAT(error_of([] {
                mpich_csel_json({{"allgather", 4, {{0, "neighbor"}}}});
              }),
              HasSubstr("decision for allgather on 4 ranks: MPICH 4.0.2 has no allgather "
                        "algorithm 'neighbor'; it has ring (MPIR_Allgather_intra_ring), bruck "
                        "(MPIR_Allgather_intra_brucks) and recdbl "
                        "(MPIR_Allgather_intra_recursive_doubling)"));
  EXPECT_THAT(error_of([] {
                mpich_csel_json({{"allreduce", 4, {{0, "ring"}}}});
              }),
              HasSubstr("MPICH 4.0.2 has no allreduce algorithm 'ring'; it has recdbl "
                        "(MPIR_Allreduce_intra_recursive_doubling) and rabenseifner"));
  // MPICH reads thresholds with atoi: 2^29 B per rank x 4 ranks - 1 does not fit an int.
  EXPECT_THAT(
      error_of([] {
        mpich_csel_json({{"allgather", 4, {{0, "ring"}, {(std::int64_t{1} << 29) + 1, "bruck"}}}});
      }),
      HasSubstr("needs total_msg_size<=536870913 x 4 - 1, above the 2147483647"));
  EXPECT_THAT(mpich_csel_json({{"allgather", 4, {{0, "ring"}, {std::int64_t{1} << 29, "bruck"}}}}),
              HasSubstr("\"total_msg_size<=2147483647\""));
  EXPECT_THAT(
      error_of([] {
        ompi_rules_text({{"alltoall", 4, {{0, "pairwise"}, {std::int64_t{1} << 62, "bruck"}}}});
      }),
      HasSubstr("overflows a 64-bit message size"));
}

}  // namespace
}  // namespace choreo
