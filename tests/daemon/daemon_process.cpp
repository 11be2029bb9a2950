#include "tests/daemon/daemon_process.hpp"

#include <algorithm>
#include <csignal>
#include <thread>

#include <gtest/gtest.h>

#include "messages/ec.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

namespace {

/// "paratune daemon: control tcp://127.0.0.1:40999, bus ..., http 127.0.0.1:4100, state ..."
std::string field_after(const std::string& line, const std::string& key) {
  const auto at = line.find(key);
  if (at == std::string::npos)
    return {};
  const auto start = at + key.size();
  return line.substr(start, line.find(',', start) - start);
}

} // namespace

control::request request_of(control::control_op op, const std::string& session) {
  control::request r;
  r.op = control::to_string(op);
  r.session = session;
  return r;
}

daemon_process::daemon_process(const std::string& state_dir, std::vector<std::string> extra,
                               daemon_launch how) {
  // The control endpoint and the bus are the default ones, Unix sockets in
  // the state directory; the relays' ingress takes a port the kernel picks.
  std::vector<std::string> argv = how.wrapper;
  argv.push_back(how.executable.empty() ? bin_dir() + "/paratune" : how.executable);
  argv.insert(argv.end(), {"daemon", "--state", state_dir});
  if (!how.state_only)
    argv.insert(argv.end(), {"--relay-ingress", "tcp://127.0.0.1:*"});
  if (!how.state_only && std::find(extra.begin(), extra.end(), "--http") == extra.end())
    extra.insert(extra.end(), {"--http", "off"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  process_ = std::make_unique<child_process>(
    argv, [this](const std::string& line) { on_line(line); },
    [this](int status) {
      std::lock_guard<std::mutex> guard{mutex_};
      exit_status_ = status;
    });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline && !process_->finished()) {
    {
      std::lock_guard<std::mutex> guard{mutex_};
      if (!control_.empty())
        break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (up())
    client_ = std::make_unique<control_client>(control_, std::chrono::seconds(20));
}

daemon_process::~daemon_process() {
  if (process_ && !process_->finished())
    stop(std::chrono::seconds(30));
}

void daemon_process::on_line(const std::string& line) {
  std::lock_guard<std::mutex> guard{mutex_};
  lines_.push_back(line);
  if (line.rfind("paratune daemon: control ", 0) == 0) {
    control_ = field_after(line, "control ");
    http_ = field_after(line, "http ");
    relay_ = field_after(line, "relay ");
  }
}

std::string daemon_process::output() const {
  std::lock_guard<std::mutex> guard{mutex_};
  std::string out;
  for (const auto& l : lines_)
    out += l + "\n";
  return out;
}

bool daemon_process::wait_exit(std::chrono::seconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (!process_->finished() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return process_->finished();
}

void daemon_process::kill9() {
  ::kill(process_->pid(), SIGKILL);
  EXPECT_TRUE(wait_exit(std::chrono::seconds(20)));
}

int daemon_process::stop(std::chrono::seconds wait) {
  ::kill(process_->pid(), SIGTERM);
  if (!wait_exit(wait))
    return -1;
  std::lock_guard<std::mutex> guard{mutex_};
  return exit_status_;
}

control::reply daemon_process::call(control::request r) {
  if (!client_)
    return control::refusal("the daemon did not start:\n" + output());
  auto reply = client_->call(r);
  if (!reply)
    return control::refusal("no reply: " + describe(reply.error()));
  return *reply;
}

} // namespace paratune::test
