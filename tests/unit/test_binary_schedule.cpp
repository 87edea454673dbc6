// The binary schedule file (.cbs): round trips array by array (checked independently through
// sim::expand and the simulator's makespan), and bad files, each a choreo::Error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "choreo/coll/generators.hpp"
#include "choreo/core/binary_schedule.hpp"
#include "choreo/core/error.hpp"
#include "choreo/core/io.hpp"
#include "choreo/sim/engine.hpp"
#include "choreo/sim/validate.hpp"
#include "error_of.hpp"
#include "schedule_builder.hpp"

namespace choreo {
namespace {

using test::error_of;
using ::testing::HasSubstr;

/// Array by array: the compact form itself, not only what expand() makes of it.
void expect_same_arrays(const CompactSchedule& x, const CompactSchedule& y,
                        const std::string& what) {
  const auto& a = x.arrays();
  const auto& b = y.arrays();
  const auto same = [&](const auto& u, const auto& v, const char* name) {
    EXPECT_TRUE(std::ranges::equal(u, v)) << what << ": array " << name;
  };
  same(a.first_op, b.first_op, "first_op");
  same(a.kind, b.kind, "kind");
  same(a.cpu, b.cpu, "cpu");
  same(a.nic, b.nic, "nic");
  same(a.peer, b.peer, "peer");
  same(a.tag, b.tag, "tag");
  same(a.amount, b.amount, "amount");
  same(a.dependency_count, b.dependency_count, "dependency_count");
  same(a.on_start_offset, b.on_start_offset, "on_start_offset");
  same(a.on_start, b.on_start, "on_start");
  same(a.on_complete_offset, b.on_complete_offset, "on_complete_offset");
  same(a.on_complete, b.on_complete, "on_complete");
  same(a.on_any_offset, b.on_any_offset, "on_any_offset");
  same(a.on_any, b.on_any, "on_any");
  EXPECT_EQ(x.cpus(), y.cpus()) << what;
  EXPECT_EQ(x.nics(), y.nics()) << what;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::path(::testing::TempDir()) / name;
}

/// A spec for every generator the registry knows, at `ranks`.
std::string spec_for(const std::string& name, int ranks) {
  std::string spec = name + ":ranks=" + std::to_string(ranks);
  if (name != "barrier:dissemination") spec += ":bytes=1000";
  if (name == "allreduce:resilient") spec += ":T=1";
  return spec;
}

TEST(BinarySchedule, RoundTripsEveryGenerator) {
  int generators = 0;
  for (const std::string& name : coll::generator_names()) {
    bool built = false;
    for (int ranks : {1, 6, 8, 13}) {
      const std::string spec = spec_for(name, ranks);
      CompactSchedule c;
      try {
        c = coll::generate(spec);
      } catch (const Error&) {
        continue;  // e.g. a neighbour exchange of an odd number of ranks
      }
      built = true;
      // In memory and through a mapped file.
      BinaryScheduleInfo info;
      const CompactSchedule decoded = decode_binary(encode_binary(c, spec), spec);
      const auto path = temp_file("generator.cbs");
      save_binary(c, spec, path);
      const CompactSchedule mapped = load_binary(path, &info);
      EXPECT_EQ(info.algorithm, spec);
      EXPECT_EQ(info.major, kBinaryScheduleMajor);
      EXPECT_THAT(info.writer, HasSubstr("choreo "));
      EXPECT_EQ(info.file_bytes, std::filesystem::file_size(path));
      for (const auto* back : {&decoded, &mapped}) {
        expect_same_arrays(c, *back, spec);
        EXPECT_EQ(choreo::expand(*back, spec), choreo::expand(c, spec)) << spec;
        sim::SimOptions options;
        EXPECT_EQ(sim::simulate(*back, options).makespan, sim::simulate(c, options).makespan)
            << spec;
      }
    }
    EXPECT_TRUE(built) << name << ": no spec of it built";
    generators += built ? 1 : 0;
  }
  EXPECT_GE(generators, 15);
}

TEST(BinarySchedule, RoundTripsRandomSchedulesWithFirstOfGroups) {
  std::mt19937_64 rng(19);
  const auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  int groups = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Schedule s = test::random_schedule(rng);
    for (auto& program : s.programs)
      for (Op& op : program.ops) {
        op.cpu = static_cast<int>(pick(0, 3));
        if (op.is_message()) op.nic = static_cast<int>(pick(0, 2));
        if (program.ops.size() < 2 || pick(0, 2) != 0) continue;
        for (const Op& other : program.ops)
          if (other.id != op.id && pick(0, 2) == 0) op.requires_any.push_back(other.id);
        groups += op.requires_any.empty() ? 0 : 1;
      }
    CompactSchedule c;
    try {
      c = choreo::compact(s);
    } catch (const Error&) {
      continue;  // out of the simulator's range (e.g. a calc beyond 10^15 ns)
    }
    s.algorithm = "random " + std::to_string(trial);
    const std::string bytes = encode_binary(c, s.algorithm);
    BinaryScheduleInfo info;
    const CompactSchedule back = decode_binary(bytes, "random.cbs", &info);
    expect_same_arrays(c, back, s.algorithm);
    ASSERT_EQ(choreo::expand(back, info.algorithm), choreo::expand(c, s.algorithm)) << trial;
    // Through the files of the tools (.cbs -> Schedule, Schedule -> .cbs).
    const auto path = temp_file("random.cbs");
    save_schedule(s, path);
    ASSERT_EQ(load_schedule(path), choreo::expand(c, s.algorithm)) << trial;
  }
  EXPECT_GT(groups, 100);
}

// ---- bad files --------------------------------------------------------------------------

/// A small schedule with every list (irequires come from a hand-made one, groups from the
/// resilient allreduce) and its bytes.
CompactSchedule small_schedule() {
  CompactBuilder b(3);
  b.begin_rank(0);
  b.send(1, 8);
  b.calc(5);
  b.recv(2, 8, 3);
  b.requires_started(1, 0);
  b.requires_any(2, 0);
  b.requires_any(2, 1);
  b.requires_completed(2, 1);
  b.begin_rank(1);
  b.recv(0, 8);
  b.send(2, 16, 1, 1, 1);
  b.requires_completed(1, 0);
  b.begin_rank(2);
  b.recv(1, 16, 1);
  b.send(0, 8, 3);
  b.requires_completed(1, 0);
  return b.finish();
}

/// The byte offset of each array, from the layout docs/formats.md gives (written here again
/// so that the reader's own arithmetic is not its own reference).
struct Offsets {
  std::uint64_t first_op, kind, cpu, nic, peer, tag, amount, dependency_count, on_start_offset,
      on_start, on_complete_offset, on_complete, on_any_offset, on_any, end;
};
Offsets cbs_offsets_of(const std::string& file) {
  const auto u32 = [&](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, file.data() + at, 4);
    return std::uint64_t{v};
  };
  const auto u64 = [&](std::size_t at) {
    std::uint64_t v;
    std::memcpy(&v, file.data() + at, 8);
    return v;
  };
  const std::uint64_t ranks = u32(28), ops = u64(32), on_start = u64(40), on_complete = u64(48),
                      on_any = u64(56);
  std::uint64_t at = u32(24);
  const auto next = [&](std::uint64_t bytes) {
    const std::uint64_t here = at;
    at = (at + bytes + 63) / 64 * 64;
    return here;
  };
  Offsets o{};
  o.first_op = next(4 * (ranks + 1));
  o.kind = next(ops);
  o.cpu = next(ops);
  o.nic = next(ops);
  o.peer = next(4 * ops);
  o.tag = next(4 * ops);
  o.amount = next(8 * ops);
  o.dependency_count = next(4 * ops);
  o.on_start_offset = next(4 * (ops + 1));
  o.on_start = next(4 * on_start);
  o.on_complete_offset = next(4 * (ops + 1));
  o.on_complete = next(4 * on_complete);
  o.on_any_offset = next(on_any > 0 ? 4 * (ops + 1) : 0);
  o.on_any = next(4 * on_any);
  o.end = at;
  return o;
}

template <typename T>
void poke(std::string& file, std::uint64_t at, T value) {
  std::memcpy(file.data() + at, &value, sizeof value);
}

std::string decode_error(const std::string& file) {
  return error_of([&] { decode_binary(file, "bad.cbs"); });
}

TEST(BinaryScheduleBadFiles, TheSmallFileIsGoodAndItsLayoutIsTheDocumentedOne) {
  const std::string file = encode_binary(small_schedule(), "small");
  EXPECT_EQ(decode_error(file), "no error");
  EXPECT_EQ(cbs_offsets_of(file).end, file.size());
  EXPECT_EQ(file.size() % 64, 0U);
  EXPECT_EQ(file.substr(0, 8), "CHOREOBS");
}

TEST(BinaryScheduleBadFiles, CutShortAtEveryByte) {
  const std::string file = encode_binary(small_schedule(), "small");
  for (std::size_t n = 0; n < file.size(); ++n) {
    const std::string error = decode_error(file.substr(0, n));
    ASSERT_THAT(error, HasSubstr("bad.cbs: ")) << n;
    if (n >= 128) {
      ASSERT_THAT(error, HasSubstr("cut short at byte " + std::to_string(n))) << n;
    }
  }
  EXPECT_THAT(decode_error(file.substr(0, 300)), HasSubstr("write it again"));
  EXPECT_THAT(decode_error(file + std::string(64, '\0')), HasSubstr("bytes follow the last array"));
}

TEST(BinaryScheduleBadFiles, AFlippedByteInTheHeader) {
  const std::string file = encode_binary(small_schedule(), "small");
  const std::uint64_t header_bytes = cbs_offsets_of(file).first_op;
  for (std::size_t at = 0; at < header_bytes; ++at) {
    std::string bad = file;
    bad[at] = static_cast<char>(bad[at] ^ 0xFF);
    const std::string error = decode_error(bad);
    if (at == 14 || at == 15) {
      // The minor version: a newer minor only adds what older readers may ignore.
      EXPECT_EQ(error, "no error") << at;
      continue;
    }
    EXPECT_THAT(error, HasSubstr("bad.cbs: ")) << "byte " << at;
  }
}

// Bit 0 of the flags says sim::validate passed when the file was written; no other bit means
// anything yet.
TEST(BinaryScheduleBadFiles, TheValidatedFlagAndNoOther) {
  BinaryScheduleInfo info;
  decode_binary(encode_binary(small_schedule(), "small"), "a.cbs", &info);
  EXPECT_FALSE(info.validated);
  std::string file = encode_binary(small_schedule(), "small", true);
  decode_binary(file, "a.cbs", &info);
  EXPECT_TRUE(info.validated);
  poke<std::uint32_t>(file, 80, 3);
  EXPECT_THAT(decode_error(file), HasSubstr("byte 80: unknown flags 0x3"));
}

TEST(BinaryScheduleBadFiles, WrongMagicFutureVersionBigEndian) {
  const std::string file = encode_binary(small_schedule(), "small");
  std::string bad = file;
  bad[0] = 'X';
  EXPECT_THAT(decode_error(bad), HasSubstr("not a choreo binary schedule"));
  EXPECT_THAT(decode_error("CHOREOTR"), HasSubstr("not a choreo binary schedule"));
  EXPECT_THAT(decode_error(""), HasSubstr("not a choreo binary schedule"));
  bad = file;
  poke<std::uint16_t>(bad, 12, 2);
  EXPECT_THAT(decode_error(bad), HasSubstr("format version 2.0 (written by choreo "));
  EXPECT_THAT(decode_error(bad), HasSubstr("is not one this choreo reads (1.x)"));
  bad = file;
  poke<std::uint32_t>(bad, 8, 0x04030201);
  EXPECT_THAT(decode_error(bad), HasSubstr("written big-endian"));
}

TEST(BinaryScheduleBadFiles, ArraysThatBreakTheStructure) {
  const std::string file = encode_binary(small_schedule(), "small");
  const Offsets o = cbs_offsets_of(file);
  const auto with = [&](auto change) {
    std::string bad = file;
    change(bad);
    return decode_error(bad);
  };
  // Rank 0: ops 0-2; rank 1: ops 3-4; rank 2: ops 5-6.
  EXPECT_THAT(with([&](std::string& f) { poke<std::uint32_t>(f, o.first_op + 8, 2); }),
              HasSubstr("first_op[2] = 2 is out of order"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::uint32_t>(f, o.first_op + 12, 6); }),
              HasSubstr("first_op[3] = 6, not the 7 ops"));
  EXPECT_THAT(with([&](std::string& f) { f[o.kind + 1] = 9; }),
              HasSubstr("rank 0, op 1 (?): kind 9 is not an op"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::int32_t>(f, o.peer + 0, 3); }),
              HasSubstr("rank 0, op 0 (send): peer 3 is out of range for a 3-rank schedule"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::int32_t>(f, o.peer + 0, -1); }),
              HasSubstr("peer -1 is out of range"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::int32_t>(f, o.tag + 4 * 2, -2); }),
              HasSubstr("rank 0, op 2 (recv): tag -2 is invalid"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::int32_t>(f, o.peer + 4 * 1, 1); }),
              HasSubstr("an op that is not a message has 0"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::int64_t>(f, o.amount, -1); }),
              HasSubstr("size -1 is out of range"));
  EXPECT_THAT(with([&](std::string& f) {
                poke<std::int64_t>(f, o.amount + 8, std::int64_t{2'000'000'000'000'000});
              }),
              HasSubstr("time 2000000000000000 is out of range"));
  EXPECT_THAT(with([&](std::string& f) { f[o.cpu + 3] = 2; }),
              HasSubstr("rank 1, op 0 (recv): cpu 2 / nic 0"));
  EXPECT_THAT(with([&](std::string& f) { f[o.nic + 4] = 2; }), HasSubstr("beyond the header's"));
  // on_complete lists: op 1 -> 2, op 3 -> 4, op 5 -> 6; offsets 0 0 1 1 2 2 3 3.
  EXPECT_THAT(
      with([&](std::string& f) { poke<std::uint32_t>(f, o.on_complete_offset + 4 * 3, 0); }),
      HasSubstr("rank 0, op 2 (recv): on_complete_offset[3] = 0 is out of order"));
  EXPECT_THAT(
      with([&](std::string& f) { poke<std::uint32_t>(f, o.on_complete_offset + 4 * 7, 4); }),
      HasSubstr("on_complete_offset[7] = 4, not the list's 3 entries"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::uint32_t>(f, o.on_complete, 4); }),
              HasSubstr("rank 0, op 1 (calc): op 4 depends on it, but is not of rank 0"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::uint32_t>(f, o.on_complete, 1); }),
              HasSubstr("that is itself"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::uint32_t>(f, o.on_start, 99); }),
              HasSubstr("op 99 depends on it, but is not of rank 0"));
  EXPECT_THAT(with([&](std::string& f) { poke<std::uint32_t>(f, o.on_any + 4, 5); }),
              HasSubstr("not of rank 0"));
  // Consistent lists, but a count that does not match them (the engine would wait forever
  // or start an op early).
  EXPECT_THAT(with([&](std::string& f) { poke<std::uint32_t>(f, o.dependency_count + 4 * 4, 2); }),
              HasSubstr("rank 1, op 1: dependency_count 2, but the lists give it 1"));
  // A moved dependency: still in its rank, counts now wrong.
  EXPECT_THAT(with([&](std::string& f) { poke<std::uint32_t>(f, o.on_complete, 0); }),
              HasSubstr("rank 0, op 0: dependency_count 0, but the lists give it 1"));
  // The header's cpus and nics are what the ops use, not more.
  EXPECT_THAT(with([&](std::string& f) { poke<std::uint32_t>(f, 64, 3); }),
              HasSubstr("the header says 3 cpus and 2 nics; the ops use 2 and 2"));
}

// A fuzzer's promise, in every build (tests/fuzz/fuzz_binary_schedule.cpp runs it under
// libFuzzer): random byte changes of good files are each an Error or a schedule that
// sim::validate and the simulator take to a result or an Error, never out of bounds (the asan
// preset checks that).
TEST(BinaryScheduleBadFiles, RandomChangesAreErrorsOrSchedulesTheSimulatorRuns) {
  std::mt19937_64 rng(2019);
  const std::vector<std::string> files = {
      encode_binary(small_schedule(), "small"),
      encode_binary(coll::generate("allreduce:recdbl:ranks=6:bytes=8"), "recdbl"),
      encode_binary(coll::generate("allreduce:resilient:ranks=4:bytes=8:T=1"), "groups")};
  int accepted = 0, simulated = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string file = files[static_cast<std::size_t>(trial) % files.size()];
    const auto header = cbs_offsets_of(file).first_op;
    const int changes = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int c = 0; c < changes; ++c) {
      // Mostly the arrays, where a change can pass the header's checks.
      const std::size_t at = std::uniform_int_distribution<std::size_t>(trial % 8 == 0 ? 0 : header,
                                                                        file.size() - 1)(rng);
      file[at] = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
    }
    CompactSchedule c;
    try {
      c = decode_binary(file, "random.cbs");
    } catch (const Error&) {
      continue;
    }
    ++accepted;
    try {  // what `choreo sim x.cbs` runs on the mapped arrays before the engine
      sim::validate(c);
    } catch (const Error&) {
    }
    try {
      sim::simulate(c, sim::SimOptions{});
      ++simulated;
    } catch (const Error&) {
    }
  }
  EXPECT_GT(accepted, 600) << simulated;
  EXPECT_GT(simulated, 100) << accepted;
}

TEST(BinaryScheduleBadFiles, MappedFiles) {
  const CompactSchedule small = small_schedule();
  const std::string file = encode_binary(small, "small");
  const auto path = temp_file("mapped.cbs");
  const auto write = [&](const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  };
  write(file);
  expect_same_arrays(load_binary(path), small, "mapped");
  // The mapping outlives every other copy of the schedule.
  CompactSchedule copy;
  {
    const CompactSchedule loaded = load_binary(path);
    copy = loaded;
  }
  std::filesystem::remove(path);
  expect_same_arrays(copy, small, "copy of a mapping");
  // Writing over the file a schedule maps (choreo convert x.cbs -o x.cbs) leaves the mapping
  // whole: the writer renames a new file over the old one.
  write(file);
  {
    const CompactSchedule loaded = load_binary(path);
    save_binary(loaded, "again", path);
    expect_same_arrays(loaded, small, "mapping written over");
    BinaryScheduleInfo info;
    expect_same_arrays(load_binary(path, &info), small, "written over");
    EXPECT_EQ(info.algorithm, "again");
  }
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{127}, std::size_t{128},
                        file.size() / 2, file.size() - 1}) {
    write(file.substr(0, n));
    EXPECT_THAT(error_of([&] { load_binary(path); }), HasSubstr(path.string() + ": ")) << n;
  }
  EXPECT_THAT(error_of([&] { load_binary(temp_file("no such file.cbs")); }),
              HasSubstr("no such file"));
  EXPECT_THAT(error_of([&] { load_binary(::testing::TempDir()); }), HasSubstr("not a file"));
}

TEST(BinaryScheduleBadFiles, WriterRefusesWhatTheReaderWould) {
  EXPECT_THAT(error_of([] { encode_binary(small_schedule(), std::string(5000, 'a')); }),
              HasSubstr("at most 4096"));
  EXPECT_THAT(error_of([] { encode_binary(small_schedule(), "\xff"); }), HasSubstr("not UTF-8"));
  EXPECT_THAT(error_of([] { save_binary(small_schedule(), "x", "/no/such/dir/x.cbs"); }),
              HasSubstr("cannot write"));
}

}  // namespace
}  // namespace choreo
