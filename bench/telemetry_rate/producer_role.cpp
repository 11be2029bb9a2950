#include "bench/telemetry_rate/producer_role.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>
#include <zmq.hpp>

#include "adapters/bus/zmq_bus.hpp"
#include "adapters/pool_feed/control_router.hpp"
#include "adapters/process/captured_command.hpp"
#include "bench/telemetry_rate/subscriber_report.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"
#include "storage/history_service.hpp"
#include "storage/message_pool.hpp"

namespace paratune::bench {

namespace {

using namespace std::chrono_literals;

std::string own_executable() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

std::string fresh_directory(const std::string& asked) {
  if (!asked.empty())
    return asked;
  std::string pattern = (std::filesystem::temp_directory_path() / "telemetry-rate-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a temporary directory from " + pattern);
  return pattern;
}

/// The subscriber's command line: this program in its other role.
std::vector<std::string> subscriber_argv(const bench_options& opts, const std::string& bus,
                                         const std::string& control) {
  return {own_executable(), "--role", "subscribe", "--bus", bus, "--control", control,
          "--records", std::to_string(opts.records), "--sessions", std::to_string(opts.sessions),
          "--hwm", std::to_string(opts.hwm), "--timeout", std::to_string(opts.timeout_s)};
}

/// One stream of the run: its session, trial and topic, and the next iteration.
struct stream {
  std::string session;
  int trial = 0;
  std::string topic;
  int64_t iteration = 0;
};

std::vector<stream> make_streams(const bench_options& opts) {
  std::vector<stream> out;
  for (int s = 0; s < opts.sessions; ++s)
    for (int t = 1; t <= opts.trials; ++t)
      out.push_back({session_id(s), t, topics::telemetry(session_id(s), t), 0});
  return out;
}

/// Fills `batch` with the next `count` telemetry envelopes, the streams taken
/// in turn as trials running side by side would report.
void next_batch(std::vector<wire::envelope>& batch, std::vector<const stream*>& of,
                std::vector<stream>& streams, uint64_t& turn, size_t count) {
  batch.clear();
  of.clear();
  for (size_t i = 0; i < count; ++i, ++turn) {
    auto& s = streams[turn % streams.size()];
    wire::telemetry t;
    t.trial = s.trial;
    t.iteration = ++s.iteration;
    t.elapsed_ms = 950.0 + double(s.iteration % 100);
    t.tflops_per_gpu = 180.0 + double(s.iteration % 17);
    batch.push_back(wire::make_envelope(s.session, s.trial, t));
    of.push_back(&s);
  }
}

/// Where the producer's time went (the machine has no profiler: timing is
/// the profile).
struct write_timing {
  double make_s = 0;    ///< building the envelopes
  double append_s = 0;  ///< time inside append_batch
  double send_s = 0;    ///< encoding and publishing
  int64_t start_ns = 0;
  int64_t end_ns = 0;   ///< after the last publish
};

write_timing write_and_publish(const bench_options& opts, message_pool& pool,
                               bus_publisher& pub) {
  auto streams = make_streams(opts);
  std::vector<wire::envelope> batch;
  std::vector<const stream*> of;
  batch.reserve(size_t(opts.batch));
  msgpack::sbuffer packed;
  uint64_t turn = 0;
  write_timing timing;
  timing.start_ns = steady_ns();
  for (uint64_t done = 0; done < opts.records;) {
    const size_t count = std::min<uint64_t>(uint64_t(opts.batch), opts.records - done);
    const auto t0 = steady_ns();
    next_batch(batch, of, streams, turn, count);
    const auto t1 = steady_ns();
    auto stored = pool.append_batch(batch);
    const auto t2 = steady_ns();
    if (!stored)
      throw std::runtime_error("append_batch: " + describe(stored.error()));
    for (size_t i = 0; i < batch.size(); ++i) {
      packed.clear(); // one buffer for every message: no allocation per record
      msgpack::pack(packed, batch[i]);
      pub.publish(of[i]->topic, {packed.data(), packed.size()});
    }
    const auto t3 = steady_ns();
    timing.make_s += double(t1 - t0) / 1e9;
    timing.append_s += double(t2 - t1) / 1e9;
    timing.send_s += double(t3 - t2) / 1e9;
    done += count;
  }
  timing.end_ns = steady_ns();
  return timing;
}

/// The run's one result line: "telemetry_rate run=... messages=... ...".
void print_result(const bench_options& opts, const write_timing& w,
                  const subscriber_report& r) {
  const double seconds = double(r.last_ns - w.start_ns) / 1e9;
  const double records = double(opts.records);
  const std::vector<std::pair<const char*, std::string>> fields{
    {"run", opts.label},
    {"messages", std::to_string(opts.records)},
    {"seconds", fmt::format("{:.3f}", seconds)},
    {"msgs_per_s", fmt::format("{:.0f}", records / seconds)},
    {"pool_append_per_s", fmt::format("{:.0f}", records / w.append_s)},
    {"make_s", fmt::format("{:.3f}", w.make_s)},
    {"append_s", fmt::format("{:.3f}", w.append_s)},
    {"send_s", fmt::format("{:.3f}", w.send_s)},
    {"producer_s", fmt::format("{:.3f}", double(w.end_ns - w.start_ns) / 1e9)},
    {"gaps", std::to_string(r.gaps)},
    {"recovered", std::to_string(r.recovered)},
    {"lost", std::to_string(r.lost)},
    {"twice", std::to_string(r.twice)},
    {"disordered", std::to_string(r.disordered)},
    {"late", std::to_string(r.late)},
    {"duplicates", std::to_string(r.duplicates)},
    {"hwm", std::to_string(opts.hwm > 0 ? opts.hwm : default_high_water_mark)},
    {"sessions", std::to_string(opts.sessions)},
    {"trials", std::to_string(opts.trials)},
    {"batch", std::to_string(opts.batch)},
  };
  std::string line = "telemetry_rate";
  for (const auto& [key, value] : fields)
    line += fmt::format(" {}={}", key, value);
  std::printf("%s\n", line.c_str());
}

} // namespace

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           std::chrono::steady_clock::now().time_since_epoch()).count();
}

int run_producer(const bench_options& opts) {
  const auto dir = fresh_directory(opts.dir);
  auto opened = message_pool::open(dir);
  if (!opened) {
    std::fprintf(stderr, "error: %s\n", describe(opened.error()).c_str());
    return 1;
  }
  auto& pool = **opened;
  const int hwm = opts.hwm > 0 ? opts.hwm : default_high_water_mark;
  zmq::context_t ctx(1);
  bus_proxy proxy(ctx, {"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}, hwm);
  control_router router(ctx, "tcp://127.0.0.1:*");
  std::atomic<bool> serving{true};
  std::thread control_thread([&] {
    const control_router::answer_fn answer = [&](const control::request& r) {
      return serve_history(pool, r);
    };
    while (serving)
      router.serve(answer, 20ms);
  });
  bus_publisher pub(ctx, proxy.bound(), /*sees_subscriptions=*/true, hwm);

  captured_command_options child;
  child.timeout = std::chrono::seconds(opts.timeout_s + 30);
  auto subscriber = std::async(std::launch::async, [&] {
    return run_captured(subscriber_argv(opts, proxy.bound().subscribe, router.endpoint()),
                        child);
  });
  int status = 1;
  if (!pub.await_subscriber("telemetry.", 10s)) {
    std::fprintf(stderr, "error: the subscriber's subscription did not reach the bus in 10 s\n");
  } else {
    const auto timing = write_and_publish(opts, pool, pub);
    const auto ended = subscriber.get();
    const auto report = subscriber_report::parse(ended.out);
    if (!report) {
      std::fprintf(stderr, "error: the subscriber exited with %d and no report: %s\n",
                   ended.exit_code, ended.err.c_str());
    } else {
      print_result(opts, timing, *report);
      status = report->exact() && ended.exit_code == 0 ? 0 : 1;
    }
  }
  serving = false;
  control_thread.join();
  if (subscriber.valid())
    (void)subscriber.get();
  if (opts.dir.empty()) {
    opened->reset();
    std::filesystem::remove_all(dir);
  }
  return status;
}

} // namespace paratune::bench
