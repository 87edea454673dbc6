// MPI traces (rank-<r>.ctr, CHOREO_RECORD; docs/formats.md): trace::decode, the encoder's
// round trip, and choreo import of a one-rank trace (whose schedule must keep the promises of
// every schedule, schedule_checks.hpp).
#include "choreo/replay/import.hpp"
#include "choreo/replay/trace_format.hpp"
#include "fuzz_support.hpp"
#include "schedule_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace choreo;
  trace::RankTrace t;
  if (!fuzz::accepted([&] { t = trace::decode(fuzz::text_of(data, size), "fuzz.ctr"); })) return 0;
  std::string bytes;
  trace::encode(t.header, bytes);
  for (const trace::Event& e : t.events) trace::encode(e, bytes);
  trace::Event end;
  end.kind = trace::Kind::End;
  end.gap_ns = t.final_gap_ns;
  end.records = t.events.size();
  trace::encode(end, bytes);
  const trace::RankTrace back = trace::decode(bytes, "again.ctr");
  fuzz::promise(
      back.header == t.header && back.events == t.events && back.final_gap_ns == t.final_gap_ns,
      "a trace decoded, encoded and decoded again is the same");
  if (t.header.size != 1 || t.events.size() > 4096) return 0;
  Schedule s;
  if (fuzz::accepted([&] { s = replay::import_traces({t}, replay::ImportOptions{}); }))
    fuzz::check_schedule(s);
  return 0;
}
