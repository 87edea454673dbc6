// The text specs of the command line. The first byte picks the reader, the rest is its text:
//   0 generator specs (choreo generate)   5 shapes and distributions "SHAPE|DIST"
//   1 noise (--noise)                     6 size ranges (select --sizes) and sizes
//   2 networks (--network, --topology)    7 model tables (select --tables)
//   3 placements (--placement)            8 torus dimensions (choreo platform torus)
//   4 units: bandwidth, latency, speed    9 ScaLAPACK descriptors (desc:...)
// Each must answer with the parsed value or choreo::Error; distributions also read back
// from their text form.
#include <cctype>
#include <string>
#include <string_view>

#include "choreo/coll/generators.hpp"
#include "choreo/redist/distribution.hpp"
#include "choreo/redist/scalapack.hpp"
#include "choreo/select/select.hpp"
#include "choreo/sim/noise.hpp"
#include "choreo/topo/network.hpp"
#include "choreo/topo/platform.hpp"
#include "fuzz_support.hpp"

namespace {

using namespace choreo;

/// Generators build every op in memory: only specs whose numbers are all small are built.
bool small_numbers(std::string_view text) {
  std::size_t digits = 0;
  for (const char c : text) {
    digits = std::isdigit(static_cast<unsigned char>(c)) ? digits + 1 : 0;
    if (digits > 3) return false;
  }
  return true;
}

void distribution(std::string_view text) {
  const auto bar = text.find('|');
  if (bar == std::string_view::npos) return;
  std::vector<std::int64_t> shape;
  if (!fuzz::accepted([&] { shape = redist::parse_shape(text.substr(0, bar)); })) return;
  const std::string_view spec = text.substr(bar + 1);
  redist::ArrayDistribution d;
  if (!fuzz::accepted([&] { d = redist::parse_any_distribution(spec, shape); })) return;
  if (spec.starts_with("desc:")) return;  // its text form has no words for the layout
  fuzz::promise(redist::parse_distribution(redist::to_string(d), shape) == d,
                "a distribution reads back from to_string");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text = fuzz::text_of(data + 1, size - 1);
  switch (data[0] % 10) {
    case 0:
      if (small_numbers(text)) fuzz::accepted([&] { coll::generate(text); });
      break;
    case 1:
      // trace:PATH reads a file: not the fuzzer's to choose.
      if (text.find("trace") == std::string::npos)
        fuzz::accepted([&] {
          sim::NoiseSpec spec;
          sim::add_noise(spec, text);
        });
      break;
    case 2:
      fuzz::accepted([&] { parse_network(text); });
      break;
    case 3:
      if (!text.starts_with("file:")) fuzz::accepted([&] { place_ranks(17, 5, text); });
      fuzz::accepted([&] { check_placement(text); });
      break;
    case 4:
      fuzz::accepted([&] { parse_bandwidth(text); });
      fuzz::accepted([&] { parse_latency(text); });
      fuzz::accepted([&] { parse_speed(text); });
      break;
    case 5:
      distribution(text);
      break;
    case 6:
      fuzz::accepted([&] { select::size_range(text, 2); });
      fuzz::accepted([&] { select::size_range(text, 1.01); });
      fuzz::accepted([&] { select::parse_size(text); });
      break;
    case 7:
      fuzz::accepted([&] { select::parse_model_tables(text); });
      break;
    case 8:
      fuzz::accepted([&] { parse_torus_dims(text); });
      break;
    case 9:
      fuzz::accepted([&] { redist::parse_scalapack(text); });
      break;
  }
  return 0;
}
