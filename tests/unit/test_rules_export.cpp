// Open MPI coll_tuned rules and MPICH CSEL files from decisions, and back
// (choreo/rules_export.hpp). That the libraries obey the files is shown by mpi.rules_*.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "choreo/error.hpp"
#include "choreo/rules_export.hpp"
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
      "# Open MPI coll_tuned dynamic rules, classic format (read by Open MPI 4.1.x), by choreo.\n"
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
  EXPECT_THAT(ompi_error("rule-file-version-2\n1\n"), HasSubstr("Open MPI 5's format"));
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

// ---- MPICH ----------------------------------------------------------------------------------

ordered_json collective(const std::string& text, const std::string& name) {
  return ordered_json::parse(text).at("collective=" + name);
}

TEST(MpichCsel, SmallCaseExactText) {
  // CSEL: nested objects of conditions tried in order, leaves {"algorithm=NAME": {}}.
  // allgather compares total_msg_size (recv bytes x ranks): below 1024 B per rank on 4 ranks
  // is total_msg_size<=4095.
  const std::string allgather =
      "{\n"
      "  \"collective=allgather\": {\n"
      "    \"comm_type=intra\": {\n"
      "      \"comm_size<=3\": {\n"
      "        \"algorithm=MPIR_Allgather_intra_ring\": {}\n"
      "      },\n"
      "      \"comm_size<=4\": {\n"
      "        \"total_msg_size<=4095\": {\n"
      "          \"algorithm=MPIR_Allgather_intra_brucks\": {}\n"
      "        },\n"
      "        \"total_msg_size=any\": {\n"
      "          \"algorithm=MPIR_Allgather_intra_ring\": {}\n"
      "        }\n"
      "      },\n"
      "      \"comm_size=any\": {\n"
      "        \"algorithm=MPIR_Allgather_intra_ring\": {}\n"
      "      }\n"
      "    },\n"
      "    \"comm_type=inter\": {\n"
      "      \"algorithm=MPIR_Allgather_inter_local_gather_remote_bcast\": {}\n"
      "    }\n"
      "  },\n";
  const std::string text = mpich_csel_json(kSmall);
  EXPECT_EQ(text.substr(0, allgather.size()), allgather);
  EXPECT_EQ(collective(text, "bcast"), ordered_json::parse(R"({
      "comm_type=intra": {
        "comm_size<=1": {"algorithm=MPIR_Bcast_intra_binomial": {}},
        "comm_size<=2": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
        "comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
      "comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}})"));
  EXPECT_EQ(text.back(), '\n');
}

TEST(MpichCsel, SizeConversionsAndGuards) {
  const std::string text =
      mpich_csel_json({{"allreduce", 4, {{0, "recdbl"}, {2048, "rabenseifner"}}},
                       {"alltoall", 4, {{0, "bruck"}, {256, "pairwise"}}},
                       {"bcast", 1, {{0, "binomial"}, {12288, "scatter_allgather"}}}});
  // avg_msg_size for allreduce (vector bytes), alltoall (bytes per destination), bcast.
  EXPECT_EQ(collective(text, "allreduce").at("comm_type=intra"), ordered_json::parse(R"({
      "is_commutative=no": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
      "is_op_built_in=no": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
      "count<pow2": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
      "comm_size<=3": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
      "comm_size<=4": {
        "avg_msg_size<=2047": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
        "avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}},
      "comm_size=any": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}})"));
  EXPECT_EQ(collective(text, "alltoall").at("comm_type=intra"), ordered_json::parse(R"({
      "is_sendbuf_inplace=yes": {"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
      "is_sendbuf_inplace=no": {
        "comm_size<=3": {"algorithm=MPIR_Alltoall_intra_pairwise": {}},
        "comm_size<=4": {
          "avg_msg_size<=255": {"algorithm=MPIR_Alltoall_intra_brucks": {}},
          "avg_msg_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}},
        "comm_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}}})"));
  EXPECT_EQ(collective(text, "bcast").at("comm_type=intra"), ordered_json::parse(R"({
      "comm_size<=1": {
        "avg_msg_size<=12287": {"algorithm=MPIR_Bcast_intra_binomial": {}},
        "avg_msg_size=any": {
          "algorithm=MPIR_Bcast_intra_scatter_recursive_doubling_allgather": {}}},
      "comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}})"));
}

TEST(MpichCsel, CoversEveryCollectiveMpichSelects) {
  // The file replaces MPICH's MPIR-level table: a collective it leaves out aborts MPICH.
  const ordered_json root = ordered_json::parse(mpich_csel_json({}));
  ASSERT_EQ(mpi_collectives().size(), 22u);  // MPI's blocking collectives
  for (const std::string_view name : mpi_collectives()) {
    EXPECT_TRUE(root.contains("collective=" + std::string(name))) << name;
    EXPECT_TRUE(root.contains("collective=i" + std::string(name))) << name;  // nonblocking
  }
  EXPECT_EQ(root.size(), 44u);
  EXPECT_EQ(root.at("collective=barrier"), ordered_json::parse(R"({
      "comm_type=intra": {"algorithm=MPIR_Barrier_intra_dissemination": {}},
      "comm_type=inter": {"algorithm=MPIR_Barrier_inter_bcast": {}}})"));
}

TEST(MpichCsel, RoundTrip) {
  EXPECT_EQ(parse_mpich_csel_json(mpich_csel_json(kSmall)), kSmall);
  EXPECT_EQ(parse_mpich_csel_json(mpich_csel_json(kMany)), kMany);
  EXPECT_EQ(parse_mpich_csel_json(mpich_csel_json({})), Decisions{});
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
