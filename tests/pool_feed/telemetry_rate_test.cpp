// The telemetry bench's two processes with high-water marks small enough
// that the bus drops: every hole must be found by number and filled from
// the pool, so every record 1..N arrives once and in order on its stream.

#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

/// The result line's key=value fields.
std::map<std::string, std::string> result_fields(const std::string& out) {
  std::map<std::string, std::string> fields;
  const auto at = out.find("telemetry_rate ");
  if (at == std::string::npos)
    return fields;
  std::istringstream line(out.substr(at, out.find('\n', at) - at));
  for (std::string word; line >> word;)
    if (const auto eq = word.find('='); eq != std::string::npos)
      fields[word.substr(0, eq)] = word.substr(eq + 1);
  return fields;
}

test::program_result run_bench(const std::vector<std::string>& args) {
  std::vector<std::string> argv{std::string(PARATUNE_BIN_DIR) + "/bench_telemetry_rate"};
  argv.insert(argv.end(), args.begin(), args.end());
  return test::run_program(argv);
}

TEST(telemetry_rate, drops_at_a_tiny_high_water_mark_are_recovered_from_the_pool) {
  const auto run = run_bench({"--records", "20000", "--sessions", "2", "--trials", "3",
                              "--batch", "500", "--hwm", "10", "--label", "drop",
                              "--timeout", "60"});
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  auto f = result_fields(run.out);
  ASSERT_FALSE(f.empty()) << run.out;
  EXPECT_EQ(f["run"], "drop");
  EXPECT_EQ(f["messages"], "20000");
  EXPECT_GT(std::stoull(f["gaps"]), 0u) << run.out;
  EXPECT_GT(std::stoull(f["recovered"]), 0u) << run.out;
  EXPECT_EQ(f["lost"], "0");
  EXPECT_EQ(f["twice"], "0");
  EXPECT_EQ(f["disordered"], "0");
  EXPECT_EQ(f["hwm"], "10");
}

TEST(telemetry_rate, a_run_without_drops_delivers_every_record_live) {
  const auto run = run_bench({"--records", "5000", "--sessions", "2", "--trials", "2",
                              "--timeout", "60"});
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  auto f = result_fields(run.out);
  EXPECT_EQ(f["messages"], "5000");
  EXPECT_EQ(f["lost"], "0");
  EXPECT_EQ(f["twice"], "0");
  EXPECT_EQ(f["disordered"], "0");
  EXPECT_EQ(f["gaps"], "0");
  EXPECT_EQ(f["recovered"], "0");
}

TEST(telemetry_rate, the_subscriber_role_without_endpoints_is_refused) {
  const auto run = run_bench({"--role", "subscribe"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, "error: --role subscribe needs --bus and --control\n");
}

} // namespace
} // namespace paratune
