#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include "actors/runtime.hpp"
#include "messages/type_ids.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

/// A runtime for the actor tests: its pool in a fresh temp dir, its bus on
/// loopback TCP ports the kernel picks (ctest runs tests in parallel
/// processes, so fixed ports would collide).
struct runtime_fixture : ::testing::Test {
  void SetUp() override {
    use_source_configs();
    dir = make_temp_dir("actors");
    cfg.add_message_types<caf::id_block::paratune>();
    sys = std::make_unique<caf::actor_system>(cfg);
    auto started = runtime::start(*sys, {dir + "/pool", ep, true, false});
    ASSERT_TRUE(started) << to_string(started.error());
    rt = std::move(*started);
  }
  void TearDown() override {
    if (rt)
      rt->stop();
    rt.reset();
    sys.reset();
    std::filesystem::remove_all(dir);
  }

  std::string dir;
  bus_endpoints ep{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"};
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::unique_ptr<runtime> rt;
};

} // namespace paratune::test
