#include "adapters/process/child_process.hpp"

#include <algorithm>
#include <condition_variable>
#include <future>
#include <mutex>

#include <gtest/gtest.h>

namespace paratune {
namespace {

struct collected {
  std::mutex m;
  std::vector<std::string> lines;
  std::promise<int> exit;
};

TEST(child_process, streams_lines_and_reports_exit_code) {
  collected c;
  auto done = c.exit.get_future();
  child_process p({"/bin/sh", "-c", "echo one; echo two >&2; printf three; exit 3"},
                  [&](const std::string& l) { std::lock_guard<std::mutex> g{c.m}; c.lines.push_back(l); },
                  [&](int s) { c.exit.set_value(s); });
  ASSERT_EQ(done.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(done.get(), 3);
  EXPECT_EQ(c.lines, (std::vector<std::string>{"one", "two", "three"}));
}

TEST(child_process, arguments_are_not_interpreted_by_a_shell) {
  collected c;
  auto done = c.exit.get_future();
  child_process p({"/bin/echo", "a;b", "$HOME", "'q'"},
                  [&](const std::string& l) { c.lines.push_back(l); },
                  [&](int s) { c.exit.set_value(s); });
  ASSERT_EQ(done.get(), 0);
  EXPECT_EQ(c.lines, std::vector<std::string>{"a;b $HOME 'q'"});
}

TEST(child_process, exec_failure_is_exit_127_with_a_reason) {
  collected c;
  auto done = c.exit.get_future();
  child_process p({"/nonexistent/paratune-sim"},
                  [&](const std::string& l) { c.lines.push_back(l); },
                  [&](int s) { c.exit.set_value(s); });
  EXPECT_EQ(done.get(), 127);
  ASSERT_EQ(c.lines.size(), 1u);
  EXPECT_NE(c.lines[0].find("exec /nonexistent/paratune-sim failed"), std::string::npos);
}

TEST(child_process, an_environment_given_is_the_whole_environment) {
  setenv("PARATUNE_PARENT_SECRET", "parent-only-1f9e", 1);
  collected c;
  auto done = c.exit.get_future();
  child_process p({"/usr/bin/env"}, [&](const std::string& l) { c.lines.push_back(l); },
                  [&](int s) { c.exit.set_value(s); },
                  process_env{{"PATH", "/usr/bin:/bin"}, {"ONLY", "a b;c"}});
  EXPECT_EQ(done.get(), 0);
  EXPECT_EQ(c.lines, (std::vector<std::string>{"PATH=/usr/bin:/bin", "ONLY=a b;c"}));
  // Without one, the child inherits (paratune-relay wraps a chosen one).
  collected inherited;
  auto ended = inherited.exit.get_future();
  child_process q({"/usr/bin/env"}, [&](const std::string& l) { inherited.lines.push_back(l); },
                  [&](int s) { inherited.exit.set_value(s); });
  EXPECT_EQ(ended.get(), 0);
  EXPECT_NE(std::find(inherited.lines.begin(), inherited.lines.end(),
                      "PARATUNE_PARENT_SECRET=parent-only-1f9e"),
            inherited.lines.end());
  unsetenv("PARATUNE_PARENT_SECRET");
}

TEST(child_process, terminate_stops_a_running_child) {
  collected c;
  auto done = c.exit.get_future();
  child_process p({"/bin/sleep", "30"}, nullptr, [&](int s) { c.exit.set_value(s); });
  p.terminate(1000);
  ASSERT_EQ(done.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(done.get(), 128 + SIGTERM);
}

} // namespace
} // namespace paratune
