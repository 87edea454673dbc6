// JSON -> GOAL -> JSON is the identity: through text and through files, as `choreo convert` does.
#include <gtest/gtest.h>

#include <filesystem>

#include "choreo/core/goal_io.hpp"
#include "choreo/core/io.hpp"
#include "choreo/core/json_io.hpp"
#include "schedule_builder.hpp"

namespace choreo {
namespace {

TEST(RoundTrip, JsonGoalJsonIsTheIdentityOnRandomSchedules) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 300; ++i) {
    Schedule s = test::random_schedule(rng);
    std::string json = schedule_to_json(s);
    std::string again =
        schedule_to_json(schedule_from_goal(schedule_to_goal(schedule_from_json(json))));
    ASSERT_EQ(again, json);
  }
}

TEST(RoundTrip, ThroughFilesByExtension) {
  auto dir = std::filesystem::temp_directory_path() / "choreo_roundtrip_test";
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20; ++i) {
    Schedule s = test::random_schedule(rng);
    save_schedule(s, dir / "s.goal");
    save_schedule(load_schedule(dir / "s.goal"), dir / "s.json");
    EXPECT_EQ(load_schedule(dir / "s.json"), s);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace choreo
