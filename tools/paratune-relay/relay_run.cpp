#include "tools/paratune-relay/relay_run.hpp"

#include <atomic>
#include <csignal>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <signal.h>

#include <zmq.hpp>

#include "adapters/bus/zmq_bus.hpp"
#include "adapters/process/child_process.hpp"
#include "adapters/relay/file_follower.hpp"
#include "adapters/relay/relay_fetch.hpp"
#include "adapters/relay/relay_log.hpp"
#include "adapters/relay/relay_wire.hpp"
#include "core/relay/relay_line_buffer.hpp"

namespace paratune::relay {

namespace {

/// How long one turn of the loop waits for a re-send request.
constexpr auto turn = std::chrono::milliseconds(20);
/// The buffer's bound in bytes (its bound in lines is --buffer-lines).
constexpr size_t buffer_bytes = 64 * 1024 * 1024;
/// How long the last messages get to leave before the sockets close.
constexpr auto flush_time = std::chrono::milliseconds(100);

std::atomic<int> stop_signal{0};

extern "C" void on_stop_signal(int sig) { stop_signal = sig; }

/// The command's lines and its end, handed from its reader thread to the loop.
class line_queue {
public:
  void push(const std::string& line) {
    std::lock_guard lock(mutex_);
    lines_.push_back(line);
  }
  void end(int status) {
    std::lock_guard lock(mutex_);
    status_ = status;
  }
  std::deque<std::string> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(lines_, {});
  }
  /// The exit status once the command ended and every line was taken.
  std::optional<int> ended() {
    std::lock_guard lock(mutex_);
    return lines_.empty() ? status_ : std::nullopt;
  }

private:
  std::mutex mutex_;
  std::deque<std::string> lines_;
  std::optional<int> status_;
};

/// What the loop numbers, keeps, logs and publishes.
struct relay_state {
  const relay_options& options;
  std::string topic;
  std::string fetch;  ///< the announced re-send endpoint
  bus_publisher& bus;
  relay_line_buffer buffer;
  relay_log_writer& log;
  bool log_failed = false;

  void number(std::string line) {
    if (line.size() > max_relay_line)
      line.resize(max_relay_line);
    if (!log.append(line) && !log_failed) {
      log_failed = true;
      std::cerr << "paratune-relay: --log: cannot append to " << options.log << '\n';
    }
    const uint64_t seq = buffer.append(line);
    if (!options.drop_seq.count(seq))
      bus.publish(topic, encode(relay_message{relay_kind::line, seq, std::move(line), 0, fetch}));
  }

  void publish_end(int status) {
    const uint64_t last = buffer.size() ? buffer.last_seq() : 0;
    bus.publish(topic, encode(relay_message{relay_kind::end, last, {}, status & 255, fetch}));
  }
};

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

/// Runs the loop until the end: the command's exit status.
int relay_until_end(relay_state& s, relay_fetch_server& server, line_queue& queue,
                    child_process* child, std::optional<file_follower>& follower) {
  bool terminating = false;
  for (;;) {
    server.serve(s.buffer, turn);
    for (auto& line : follower ? follower->new_lines() : std::vector<std::string>{})
      s.number(std::move(line));
    for (auto& line : queue.take()) {
      if (follower)
        std::cerr << line << '\n'; // the command beside a followed file: its own output
      else
        s.number(std::move(line));
    }
    if (stop_signal && !child)
      break;
    if (stop_signal && !terminating) {
      terminating = true; // scancel: pass it on; the command's exit ends the loop
      ::kill(child->pid(), SIGTERM);
    }
    if (const auto status = queue.ended()) {
      if (follower)
        for (auto& line : follower->rest())
          s.number(std::move(line));
      return *status;
    }
  }
  if (follower)
    for (auto& line : follower->rest())
      s.number(std::move(line));
  return 0;
}

} // namespace

int run_relay(const relay_options& o, const std::optional<relay_key>& key) {
  relay_log_writer log;
  if (const auto error = relay_log_writer::open(log, o.log)) {
    std::cerr << "paratune-relay: --log: " << *error << '\n';
    return 1;
  }
  zmq::context_t ctx;
  std::unique_ptr<relay_fetch_server> server;
  try {
    server = std::make_unique<relay_fetch_server>(ctx, fetch_bind_of(o));
  } catch (const zmq::error_t& e) {
    std::cerr << "paratune-relay: --fetch-bind: " << fetch_bind_of(o) << ": " << e.what() << '\n';
    return 1;
  }
  std::unique_ptr<bus_publisher> bus;
  try {
    bus = std::make_unique<bus_publisher>(ctx, bus_endpoints{o.bus, ""}, true);
  } catch (const zmq::error_t& e) {
    std::cerr << "paratune-relay: --bus: " << o.bus << ": " << e.what() << '\n';
    return 1;
  }
  if (key)
    bus->sign_with([k = *key](std::string_view topic, std::string_view payload,
                              std::string_view sequence) {
      return relay_frame_mac(k, topic, payload, sequence);
    });
  relay_state state{o,
                    relay_topic(o.session, o.trial),
                    server->announced(announced_host(o)),
                    *bus,
                    relay_line_buffer(size_t(o.buffer_lines), buffer_bytes),
                    log};
  install_signal_handlers();
  (void)bus->await_subscriber(state.topic, std::chrono::milliseconds(o.await_ms));
  std::optional<file_follower> follower;
  if (!o.follow.empty())
    follower.emplace(o.follow, max_relay_line);
  line_queue queue;
  std::unique_ptr<child_process> child;
  if (!o.command.empty())
    child = std::make_unique<child_process>(
        o.command, [&queue](const std::string& line) { queue.push(line); },
        [&queue](int status) { queue.end(status); });
  const int status = relay_until_end(state, *server, queue, child.get(), follower);
  state.publish_end(status);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(o.linger_ms);
  while (std::chrono::steady_clock::now() < until)
    server->serve(state.buffer, turn); // a receiver fetching the lines the bus lost
  // The bus socket does not linger when closed: give the end time to leave.
  std::this_thread::sleep_for(flush_time);
  return status;
}

} // namespace paratune::relay
