#include "adapters/relay/relay_receiver.hpp"

#include <limits>

#include <zmq.hpp>

#include "adapters/bus/zmq_bus.hpp"
#include "adapters/relay/relay_fetch.hpp"
#include "adapters/relay/relay_log.hpp"
#include "adapters/relay/relay_wire.hpp"

namespace paratune {

namespace {

/// Lines read from a log file per pass, which bounds what one read holds.
constexpr size_t log_lines_per_read = 10000;

} // namespace

relay_receiver::relay_receiver(relay_receiver_options o, line_handler on_line)
  : options_(std::move(o)), on_line_(std::move(on_line)), sequencer_(options_.limits),
    ctx_(std::make_unique<zmq::context_t>()) {
  fetcher_ = std::thread([this] { fetch_loop(); });
  try {
    subscriber_ = std::make_unique<bus_subscriber>(*ctx_, bus_endpoints{"", options_.bus_subscribe});
  } catch (...) {
    stop_threads();
    throw;
  }
  // A prefix subscription: "relay.s.1" also matches "relay.s.10", so the
  // handler takes its own topic only.
  subscriber_->subscribe(options_.topic, [this](const std::string& topic, const std::string& payload) {
    if (topic == options_.topic)
      take(payload);
  });
}

relay_receiver::~relay_receiver() { stop_threads(); }

void relay_receiver::stop_threads() {
  subscriber_.reset(); // joins the poller: no take() after this
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_cv_.notify_all();
  if (fetcher_.joinable())
    fetcher_.join();
}

void relay_receiver::take(const std::string& payload) {
  std::lock_guard lock(mutex_);
  if (finished_)
    return;
  const auto m = decode_relay_message(payload);
  if (!m) {
    ++counts_.bad;
    return;
  }
  if (fetch_endpoint_.empty())
    fetch_endpoint_ = m->fetch;
  if (m->kind == relay_kind::end) {
    if (!sequencer_.end(m->seq))
      ++counts_.bad;
  } else {
    offer({{m->seq, m->line}}, source::bus);
  }
  if (!sequencer_.missing().empty()) {
    wake_ = true;
    wake_cv_.notify_all();
  }
  if (sequencer_.complete())
    done_cv_.notify_all();
}

void relay_receiver::offer(std::vector<std::pair<uint64_t, std::string>> lines, source from) {
  std::vector<std::string> ready;
  for (auto& [seq, line] : lines) {
    if (sequencer_.offer(seq, std::move(line), ready) != relay_sequencer::verdict::accepted)
      continue;
    if (from == source::relay)
      ++counts_.from_relay;
    else if (from == source::log)
      ++counts_.from_log;
  }
  for (const auto& line : ready)
    on_line_(line);
}

void relay_receiver::fetch_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_cv_.wait(lock, [this] { return stopping_ || wake_; });
    if (stopping_)
      return;
    wake_ = false;
    const auto holes = sequencer_.missing();
    counts_.gaps += holes.size();
    lock.unlock();
    for (const auto& hole : holes)
      fill(hole);
    lock.lock();
    if (sequencer_.complete())
      done_cv_.notify_all();
  }
}

void relay_receiver::fill(seq_range hole) {
  std::string endpoint;
  bool gone = false;
  {
    std::lock_guard lock(mutex_);
    endpoint = fetch_endpoint_;
    gone = relay_gone_;
  }
  for (uint64_t first = hole.first; !gone && !endpoint.empty() && first <= hole.last;) {
    auto reply = fetch_from_relay(*ctx_, endpoint, {first, hole.last}, options_.fetch_timeout);
    std::lock_guard lock(mutex_);
    if (!reply) {
      gone = relay_gone_ = true;
      break;
    }
    if (reply->lines.empty())
      break; // no longer in its buffer: the log has them
    first = reply->lines.back().first + 1;
    offer(std::move(reply->lines), source::relay);
    if (sequencer_.next() > hole.last)
      return;
  }
  auto lines = read_relay_log(options_.log_path, hole.first, hole.last, log_lines_per_read,
                              max_relay_line);
  std::lock_guard lock(mutex_);
  if (lines)
    offer(std::move(*lines), source::log);
}

void relay_receiver::read_log_from(uint64_t first) {
  const uint64_t last = std::numeric_limits<uint64_t>::max();
  for (;;) {
    auto lines = read_relay_log(options_.log_path, first, last, log_lines_per_read, max_relay_line);
    if (!lines || lines->empty())
      return;
    first = lines->back().first + 1;
    std::lock_guard lock(mutex_);
    offer(std::move(*lines), source::log);
  }
}

void relay_receiver::finish(std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  done_cv_.wait_for(lock, wait, [this] { return sequencer_.complete(); });
  if (!sequencer_.complete()) {
    // No end message, or holes no fetch filled: the log file has every
    // line the relay numbered (a relay killed before its end included).
    const uint64_t next = sequencer_.next();
    lock.unlock();
    read_log_from(next);
    lock.lock();
    std::vector<std::string> ready;
    sequencer_.skip_missing(ready);
    for (const auto& line : ready)
      on_line_(line);
  }
  finished_ = true;
  lock.unlock();
  stop_threads();
}

relay_receiver_counts relay_receiver::counts() const {
  std::lock_guard lock(mutex_);
  auto c = counts_;
  c.delivered = sequencer_.delivered();
  c.duplicates = sequencer_.duplicates();
  c.refused = sequencer_.refused();
  c.lost = sequencer_.lost();
  c.ended = sequencer_.end_seq().has_value();
  return c;
}

} // namespace paratune
