#pragma once
// The binary schedule file (.cbs, "choreo binary schedule"): a CompactSchedule's arrays as they
// are in memory, little-endian, each 64-byte aligned behind a versioned header, so that a
// reader maps the file and simulates from it in place (docs/formats.md has the layout).
// Loading makes one streaming pass over the arrays that checks their structure (sizes, ranges,
// offsets, dependencies within their rank and their counts): a file that passes cannot make
// the simulator read out of bounds. Semantics (matching messages, deadlocks) are not checked.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "choreo/core/compact_schedule.hpp"

namespace choreo {

/// The first 8 bytes of every .cbs file.
inline constexpr std::string_view kBinaryScheduleMagic = "CHOREOBS";
/// A reader refuses a newer major version; a newer minor version only adds what older
/// readers may ignore.
inline constexpr std::uint16_t kBinaryScheduleMajor = 1;
inline constexpr std::uint16_t kBinaryScheduleMinor = 0;

/// Header flag: choreo::sim::validate accepted the schedule when it was written, so
/// `choreo sim` need not run it again (validating once where the file is made, as
/// LogGOPSim's txt2bin converts once). Only the structure is checked on every load.
inline constexpr std::uint32_t kBinaryValidated = 1;

/// What the header says besides the arrays.
struct BinaryScheduleInfo {
  std::uint16_t major = 0, minor = 0;
  bool validated = false;  ///< the kBinaryValidated flag
  std::string writer;      ///< "choreo 0.1.0"
  std::string algorithm;   ///< Schedule::algorithm, may be empty
  std::uint64_t file_bytes = 0;
};

/// True when `path` ends in .cbs.
bool is_binary_schedule(const std::filesystem::path& path);

/// Writes `schedule` to `path` (streamed: no copy of the arrays is made).
/// `validated`: the caller ran sim::validate on it (sets kBinaryValidated).
void save_binary(const CompactSchedule& schedule, const std::string& algorithm,
                 const std::filesystem::path& path, bool validated = false);
/// The bytes save_binary writes, in memory (tests, fuzzing, small schedules).
std::string encode_binary(const CompactSchedule& schedule, const std::string& algorithm,
                          bool validated = false);

/// Maps `path` read-only and returns a schedule over the mapping (kept alive by the schedule
/// and its copies), after the structural check. Throws choreo::Error naming the file, what is
/// wrong and the fix. `info`, if given, receives the header.
CompactSchedule load_binary(const std::filesystem::path& path, BinaryScheduleInfo* info = nullptr);
/// The same from bytes in memory (copied once into aligned storage); `name` names them in
/// errors.
CompactSchedule decode_binary(std::string_view bytes, const std::string& name,
                              BinaryScheduleInfo* info = nullptr);

}  // namespace choreo
