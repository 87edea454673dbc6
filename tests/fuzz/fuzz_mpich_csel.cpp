// MPICH CSEL tuning files (JSON): parse_mpich_csel_json, and the writer's round trip.
#include "choreo/select/rules_export.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  std::vector<CollectiveDecision> d;
  if (!fuzz::accepted([&] { d = parse_mpich_csel_json(fuzz::text_of(data, size)); })) return 0;
  std::string text;
  if (d.empty() || !fuzz::accepted([&] { text = mpich_csel_json(d); })) return 0;
  fuzz::promise(parse_mpich_csel_json(text) == d, "MPICH CSEL round trip");
  return 0;
}
