// Machine profiles (choreo.profile/1, from choreo-mpi calibrate): profile_from_json.
#include "choreo/model/profile.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  MachineProfile p;
  if (!fuzz::accepted([&] { p = profile_from_json(fuzz::text_of(data, size)); })) return 0;
  fuzz::promise(profile_from_json(profile_to_json(p)) == p, "profile JSON round trip");
  return 0;
}
