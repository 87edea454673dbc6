// Open MPI coll_tuned rules files: parse_ompi_rules, and the writer's round trip.
#include "choreo/rules_export.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  std::vector<CollectiveDecision> d;
  if (!fuzz::accepted([&] { d = parse_ompi_rules(fuzz::text_of(data, size)); })) return 0;
  std::string text;
  if (d.empty() || !fuzz::accepted([&] { text = ompi_rules_text(d); })) return 0;
  fuzz::promise(parse_ompi_rules(text) == d, "Open MPI rules round trip");
  return 0;
}
