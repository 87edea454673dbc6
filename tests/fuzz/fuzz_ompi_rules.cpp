// Open MPI coll_tuned rules files, both formats: parse_ompi_rules, and the writer's round trip
// through the classic and the version 2 format.
#include "choreo/select/rules_export.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  std::vector<CollectiveDecision> d;
  if (!fuzz::accepted([&] { d = parse_ompi_rules(fuzz::text_of(data, size)); })) return 0;
  if (d.empty()) return 0;
  for (const OmpiRulesFormat format : {OmpiRulesFormat::v1, OmpiRulesFormat::v2}) {
    std::string text;
    if (!fuzz::accepted([&] { text = ompi_rules_text(d, format); })) return 0;
    fuzz::promise(parse_ompi_rules(text) == d, "Open MPI rules round trip");
  }
  return 0;
}
