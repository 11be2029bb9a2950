#include "bench/telemetry_rate/subscriber_role.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <vector>

#include <zmq.hpp>

#include "adapters/pool_feed/record_feed.hpp"
#include "bench/telemetry_rate/subscriber_report.hpp"
#include "messages/topics.hpp"

namespace paratune::bench {

namespace {

using namespace std::chrono_literals;

/// Idle this long with records missing, the subscriber asks the pool: the
/// tail of a stream that was dropped has no next message to reveal it.
constexpr auto idle_before_catch_up = 200ms;

/// Checks each delivery against the pool's numbering 1..records.
class delivery_check {
public:
  explicit delivery_check(uint64_t records) : times_(records + 1, 0) {}

  void operator()(std::string_view topic, const wire::envelope& e) {
    if (e.seq == 0 || e.seq >= times_.size()) {
      ++report_.twice; // a number the producer never wrote counts against exactness
      return;
    }
    if (times_[e.seq]++ == 0)
      ++report_.delivered;
    else
      ++report_.twice;
    auto& stream_last = streams_[std::string(topic)];
    if (e.seq <= stream_last)
      ++report_.disordered;
    stream_last = std::max(stream_last, e.seq);
    auto& session_last = sessions_[e.session];
    if (e.seq < session_last)
      ++report_.late;
    session_last = std::max(session_last, e.seq);
    report_.last_ns = steady_ns();
  }

  bool complete() const { return report_.delivered + 1 == times_.size(); }
  subscriber_report finish(const feed_counts& counts) {
    report_.lost = times_.size() - 1 - report_.delivered;
    report_.live = counts.live;
    report_.recovered = counts.recovered;
    report_.gaps = counts.recoveries;
    report_.duplicates = counts.duplicates;
    report_.history_failures = counts.failed;
    return report_;
  }

private:
  std::vector<uint32_t> times_;
  std::map<std::string, uint64_t, std::less<>> streams_;
  std::map<std::string, uint64_t, std::less<>> sessions_;
  subscriber_report report_;
};

} // namespace

int run_subscriber(const bench_options& opts) {
  zmq::context_t ctx(1);
  record_feed::options feed_opts;
  feed_opts.prefixes = {"telemetry."};
  if (opts.hwm > 0)
    feed_opts.receive_hwm = opts.hwm;
  record_feed feed(ctx, opts.bus, opts.control,
                   [](const wire::envelope& e) { return topics::telemetry(e.session, e.trial); },
                   feed_opts);
  delivery_check check(opts.records);
  auto sink = [&](std::string_view topic, const wire::envelope& e) { check(topic, e); };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(opts.timeout_s);
  auto last_message = std::chrono::steady_clock::now();
  while (!check.complete() && std::chrono::steady_clock::now() < deadline) {
    if (feed.poll(20ms, sink) > 0) {
      last_message = std::chrono::steady_clock::now();
      continue;
    }
    if (std::chrono::steady_clock::now() - last_message < idle_before_catch_up)
      continue;
    for (int s = 0; s < opts.sessions && !check.complete(); ++s)
      if (auto error = feed.catch_up(session_id(s), sink))
        std::fprintf(stderr, "%s\n", error->text.c_str());
    last_message = std::chrono::steady_clock::now();
  }
  const auto report = check.finish(feed.counts());
  std::printf("%s\n", report.line().c_str());
  return report.exact() ? 0 : 1;
}

} // namespace paratune::bench
