// SimGrid quantities and platform XML. Expected values are computed by hand from the units'
// definitions (1 Gbps = 1e9 bits/s = 1.25e8 bytes/s), and the XML of small platforms is
// compared with literal text that smpirun was checked to load.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "choreo/core/error.hpp"
#include "choreo/topo/platform.hpp"

namespace choreo {
namespace {

// Runs `parse` on `text` and returns the message of the choreo::Error it must throw.
template <typename Parse>
std::string error_of(Parse parse, const std::string& text) {
  try {
    parse(text);
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "no choreo::Error for '" << text << "'";
  return {};
}

// ---- parsing ---------------------------------------------------------------------------

TEST(Units, BandwidthInBitsAndBytes) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("1Gbps"), 1.25e8);
  EXPECT_DOUBLE_EQ(parse_bandwidth("10Gbps"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("125MBps"), 1.25e8);
  EXPECT_DOUBLE_EQ(parse_bandwidth("5GBps"), 5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1e9Bps"), 1e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("8bps"), 1);
  EXPECT_DOUBLE_EQ(parse_bandwidth("2kBps"), 2e3);
  EXPECT_DOUBLE_EQ(parse_bandwidth("3Tbps"), 3.75e11);
  EXPECT_DOUBLE_EQ(parse_bandwidth("0.5MBps"), 5e5);
}

TEST(Units, BandwidthBinaryPrefixes) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("1KiBps"), 1024);
  EXPECT_DOUBLE_EQ(parse_bandwidth("2MiBps"), 2 * 1048576.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1GiBps"), 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth("8Gibps"), 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1TiBps"), 1099511627776.0);
}

TEST(Units, Latency) {
  EXPECT_DOUBLE_EQ(parse_latency("50us"), 5e-5);
  EXPECT_DOUBLE_EQ(parse_latency("1us"), 1e-6);
  EXPECT_DOUBLE_EQ(parse_latency("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_latency("100ns"), 1e-7);
  EXPECT_DOUBLE_EQ(parse_latency("2e-6s"), 2e-6);
  EXPECT_DOUBLE_EQ(parse_latency("3ps"), 3e-12);
  EXPECT_EQ(parse_latency("0s"), 0.0);
}

TEST(Units, LatencyIsTheNearestDouble) {
  // 50 / 1e6 rounds once; 50 * 1e-6 would be off by one bit.
  EXPECT_EQ(parse_latency("50us"), 5e-5);
  EXPECT_EQ(parse_latency("1.5ms"), 1.5e-3);
}

TEST(Units, Speed) {
  EXPECT_DOUBLE_EQ(parse_speed("1Gf"), 1e9);
  EXPECT_DOUBLE_EQ(parse_speed("100Mf"), 1e8);
  EXPECT_DOUBLE_EQ(parse_speed("1f"), 1);
}

TEST(Units, SpacesAroundTheNumberAreAllowed) {
  EXPECT_DOUBLE_EQ(parse_bandwidth(" 1 Gbps "), 1.25e8);
  EXPECT_DOUBLE_EQ(parse_latency("50 us"), 5e-5);
}

// Zero needs no unit (issue 21: `--hop-latency 0` was refused though its help said
// "default 0"); any other bare number still does. A rate of zero is refused as such.
TEST(Units, ZeroNeedsNoUnit) {
  EXPECT_EQ(parse_latency("0"), 0.0);
  EXPECT_EQ(parse_latency(" 0.0 "), 0.0);
  EXPECT_EQ(parse_latency("0us"), 0.0);
  EXPECT_NE(error_of(parse_bandwidth, "0").find("bandwidth '0' is zero"), std::string::npos);
  EXPECT_NE(error_of(parse_bandwidth, "0Gbps").find("is zero"), std::string::npos);
  EXPECT_NE(error_of(parse_speed, "0").find("is zero"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "0.5").find("has no unit"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "1e-9").find("has no unit"), std::string::npos);
}

// ---- parse errors ----------------------------------------------------------------------

TEST(UnitErrors, MissingUnitSaysHowToWriteIt) {
  EXPECT_EQ(
      error_of(parse_bandwidth, "1G")
          .rfind("bandwidth '1G' has no unit: write e.g. 1Gbps (bits/s) or 125MBps (bytes/s)", 0),
      0u);
  EXPECT_NE(error_of(parse_bandwidth, "1000").find("has no unit"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "50").find("latency '50' has no unit"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "5m").find("has no unit"), std::string::npos);
  EXPECT_NE(error_of(parse_speed, "1G").find("host speed '1G' has no unit"), std::string::npos);
}

TEST(UnitErrors, UnknownUnitIsNamedAndTheAcceptedOnesListed) {
  const std::string message = error_of(parse_bandwidth, "1Gbs");
  EXPECT_NE(message.find("unknown unit 'Gbs'"), std::string::npos) << message;
  EXPECT_NE(message.find("Gbps"), std::string::npos) << message;
  EXPECT_NE(message.find("MBps"), std::string::npos) << message;
  EXPECT_NE(error_of(parse_bandwidth, "1KBps").find("unknown unit 'KBps'"), std::string::npos);
  EXPECT_NE(error_of(parse_bandwidth, "1gbps").find("unknown unit"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "5usec").find("s, ms, us, ns, ps"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "5Bps").find("unknown unit 'Bps'"), std::string::npos);
  EXPECT_NE(error_of(parse_speed, "1Gflops").find("unknown unit"), std::string::npos);
}

TEST(UnitErrors, NegativeNonFiniteAndGarbage) {
  EXPECT_NE(error_of(parse_bandwidth, "-1Gbps").find("is negative"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "-1us").find("is negative"), std::string::npos);
  EXPECT_NE(error_of(parse_bandwidth, "infBps").find("not finite"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "nans").find("not finite"), std::string::npos);
  EXPECT_NE(error_of(parse_bandwidth, "1e999Bps").find("out of range"), std::string::npos);
  EXPECT_NE(error_of(parse_bandwidth, "1e300TBps").find("out of range"), std::string::npos);
  EXPECT_NE(error_of(parse_bandwidth, "fast").find("does not start with a number"),
            std::string::npos);
  EXPECT_NE(error_of(parse_bandwidth, "+1Gbps").find("does not start with a number"),
            std::string::npos);
  EXPECT_NE(error_of(parse_bandwidth, "").find("is empty"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "  ").find("is empty"), std::string::npos);
  EXPECT_NE(error_of(parse_latency, "1us2").find("unknown unit 'us2'"), std::string::npos);
}

// ---- formatting ------------------------------------------------------------------------

TEST(UnitFormat, PicksTheLargestPrefixWithAMantissaOfAtLeastOne) {
  EXPECT_EQ(format_bandwidth(1.25e8), "125MBps");
  EXPECT_EQ(format_bandwidth(5e9), "5GBps");
  EXPECT_EQ(format_bandwidth(1.25e9), "1.25GBps");
  EXPECT_EQ(format_bandwidth(0.5), "0.5Bps");
  EXPECT_EQ(format_bandwidth_bits(1.25e8), "1Gbps");
  EXPECT_EQ(format_latency(5e-5), "50us");
  EXPECT_EQ(format_latency(1e-6), "1us");
  EXPECT_EQ(format_latency(1.5e-3), "1.5ms");
  EXPECT_EQ(format_latency(2), "2s");
  EXPECT_EQ(format_latency(0), "0s");
  EXPECT_EQ(format_speed(1e9), "1Gf");
  EXPECT_EQ(format_speed(1e8), "100Mf");
}

TEST(UnitFormat, RoundTrips) {
  for (const char* text : {"1Gbps", "125MBps", "10Gbps", "1GiBps", "3.3kbps"}) {
    const double value = parse_bandwidth(text);
    EXPECT_DOUBLE_EQ(parse_bandwidth(format_bandwidth(value)), value) << text;
  }
  for (const char* text : {"50us", "1us", "1.5ms", "100ns", "2e-6s", "0s", "12.345678ms"}) {
    const double value = parse_latency(text);
    EXPECT_DOUBLE_EQ(parse_latency(format_latency(value)), value) << text;
  }
}

// ---- torus dimensions ------------------------------------------------------------------

TEST(TorusDims, ParseAndFormat) {
  EXPECT_EQ(parse_torus_dims("2x3x4"), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(parse_torus_dims("16"), (std::vector<int>{16}));
  EXPECT_EQ(format_torus_dims({2, 3, 4}), "2x3x4");
}

TEST(TorusDims, Errors) {
  const auto parse = [](const std::string& text) { return parse_torus_dims(text); };
  for (const char* text : {"", "2x", "x2", "2X3", "2x3y", "2,3", "a", "2xx3"}) {
    EXPECT_NE(error_of(parse, text).find("write e.g. 2x3x4"), std::string::npos) << text;
  }
  EXPECT_NE(error_of(parse, "2x0").find("below 1"), std::string::npos);
  EXPECT_NE(error_of(parse, "99999999999").find("too large"), std::string::npos);
}

// ---- platforms -------------------------------------------------------------------------

const LinkParams kGigabitEthernet{1.25e8, 5e-5, 1e9};

TEST(Platform, SwitchXmlIsExactly) {
  const std::string expected =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<!-- choreo: 4 nodes on one non-blocking crossbar switch; each node has a private\n"
      "     full-duplex link of 125MBps (1Gbps) and 50us latency, and a message crosses two "
      "links. -->\n"
      "<platform version=\"4.1\">\n"
      "  <cluster id=\"switch\" prefix=\"node-\" radical=\"0-3\" suffix=\"\" speed=\"1Gf\"\n"
      "           bw=\"125MBps\" lat=\"50us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
      "</platform>\n";
  EXPECT_EQ(simgrid_xml(SwitchPlatform{4, kGigabitEthernet}), expected);
}

TEST(Platform, TorusXmlIsExactly) {
  const std::string expected =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<!-- choreo: 2x3x4 torus of 24 nodes; each link between neighbours is full duplex with\n"
      "     5GBps (40Gbps) and 1us latency per direction; routes go dimension by dimension. "
      "-->\n"
      "<platform version=\"4.1\">\n"
      "  <cluster id=\"torus\" topology=\"TORUS\" topo_parameters=\"2,3,4\"\n"
      "           prefix=\"node-\" radical=\"0-23\" suffix=\"\" speed=\"100Mf\"\n"
      "           bw=\"5GBps\" lat=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
      "</platform>\n";
  EXPECT_EQ(simgrid_xml(TorusPlatform{{2, 3, 4}, {5e9, 1e-6, 1e8}}), expected);
}

TEST(Platform, SixtyFourNodeSwitchNamesEveryHost) {
  const std::string xml = simgrid_xml(SwitchPlatform{64, kGigabitEthernet});
  EXPECT_NE(xml.find("radical=\"0-63\""), std::string::npos);
  EXPECT_EQ(xml.find("bb_bw"), std::string::npos) << "a backbone would make the switch blocking";
  const std::string hosts = hostfile(64);
  EXPECT_EQ(hosts.rfind("node-0\nnode-1\n", 0), 0u);
  EXPECT_EQ(std::count(hosts.begin(), hosts.end(), '\n'), 64);
  EXPECT_TRUE(hosts.ends_with("\nnode-63\n"));
}

TEST(Platform, TorusDropsDimensionsOfSizeOne) {
  // SimGrid aborts on two size-1 dimensions (it declares the same self-link twice).
  const TorusPlatform torus{{1, 4, 1}, kGigabitEthernet};
  EXPECT_EQ(node_count(torus), 4);
  const std::string xml = simgrid_xml(torus);
  EXPECT_NE(xml.find("topo_parameters=\"4\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("1x4x1 torus of 4 nodes"), std::string::npos) << xml;
  EXPECT_NE(simgrid_xml(TorusPlatform{{1, 1}, kGigabitEthernet}).find("topo_parameters=\"1\""),
            std::string::npos);
}

TEST(Platform, NodeCounts) {
  EXPECT_EQ(node_count(SwitchPlatform{64, kGigabitEthernet}), 64);
  EXPECT_EQ(node_count(TorusPlatform{{2, 3, 4}, kGigabitEthernet}), 24);
  EXPECT_EQ(node_count(TorusPlatform{{8, 8, 8, 8}, kGigabitEthernet}), 4096);
  EXPECT_EQ(host_name(7), "node-7");
}

TEST(PlatformErrors, InvalidInputsAreRejectedWithTheReason) {
  const auto switch_error = [](int nodes, LinkParams link) {
    return error_of(
        [&](const std::string&) {
          return simgrid_xml(SwitchPlatform{nodes, link});
        },
        "");
  };
  const auto torus_error = [](std::vector<int> dims, LinkParams link) {
    return error_of([&](const std::string&) { return simgrid_xml(TorusPlatform{dims, link}); }, "");
  };
  EXPECT_NE(switch_error(0, kGigabitEthernet).find("at least 1 node"), std::string::npos);
  EXPECT_NE(switch_error(-3, kGigabitEthernet).find("got -3"), std::string::npos);
  EXPECT_NE(switch_error(4, {0, 1e-6, 1e9}).find("bandwidth must be positive"), std::string::npos);
  EXPECT_NE(switch_error(4, {1e9, -1e-6, 1e9}).find("latency must be zero or positive"),
            std::string::npos);
  EXPECT_NE(switch_error(4, {1e9, 1e-6, 0}).find("host speed must be positive"), std::string::npos);
  EXPECT_NE(torus_error({}, kGigabitEthernet).find("at least one dimension"), std::string::npos);
  EXPECT_NE(torus_error({2, 0, 4}, kGigabitEthernet).find("dimension of 0"), std::string::npos);
  EXPECT_NE(torus_error({65536, 65536}, kGigabitEthernet).find("more than"), std::string::npos);
  EXPECT_NE(error_of([](const std::string&) { return hostfile(0); }, "").find("at least 1"),
            std::string::npos);
}

}  // namespace
}  // namespace choreo
