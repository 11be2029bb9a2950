#include "adapters/pool_feed/record_feed.hpp"

#include <algorithm>
#include <limits>

#include "messages/codec.hpp"

namespace paratune {

namespace {

/// Records to ask for: `wanted`, within the configured page (0: the
/// protocol's cap), and at least one.
uint32_t page_limit(uint32_t page, uint64_t wanted) {
  const uint64_t cap = page == 0 ? control::max_history_records : page;
  return uint32_t(std::clamp<uint64_t>(wanted, 1, cap));
}

} // namespace

record_feed::record_feed(zmq::context_t& ctx, const std::string& bus_subscribe,
                         const std::string& control, topic_fn topic_of, options opts)
  : socket_(ctx, zmq::socket_type::sub),
    history_(ctx, control, opts.history_timeout),
    topic_of_(std::move(topic_of)),
    opts_(std::move(opts)) {
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::rcvhwm, opts_.receive_hwm);
  socket_.connect(bus_subscribe);
  for (const auto& prefix : opts_.prefixes)
    socket_.set(zmq::sockopt::subscribe, prefix);
}

size_t record_feed::poll(std::chrono::milliseconds wait, const sink_fn& sink) {
  zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, wait) == 0)
    return 0;
  size_t read = 0;
  while (socket_.recv(topic_frame_, zmq::recv_flags::dontwait)) {
    ++read;
    ++counts_.messages;
    // A bus message is three frames; anything else is read to its end and dropped.
    bool whole = topic_frame_.more() && socket_.recv(body_frame_, zmq::recv_flags::none)
                 && body_frame_.more() && socket_.recv(number_frame_, zmq::recv_flags::none)
                 && !number_frame_.more();
    for (zmq::message_t rest; !whole && socket_.get(zmq::sockopt::rcvmore);)
      (void)socket_.recv(rest, zmq::recv_flags::none);
    bus_sequence number;
    if (!whole || !bus_sequence::decode(number_frame_.to_string_view(), number)) {
      ++counts_.malformed;
      continue;
    }
    wire::envelope e;
    try {
      e = wire::decode_envelope(body_frame_.to_string_view());
    } catch (const wire::decode_error&) {
      ++counts_.malformed;
      continue;
    }
    take(topic_frame_.to_string_view(), number, e, sink);
  }
  return read;
}

void record_feed::take(std::string_view topic, const bus_sequence& number,
                       const wire::envelope& e, const sink_fn& sink) {
  switch (sequencer_.offer_live(topic, number, e)) {
    case record_sequencer::verdict::deliver:
      ++counts_.live;
      sink(topic, e);
      return;
    case record_sequencer::verdict::duplicate:
      ++counts_.duplicates;
      return;
    case record_sequencer::verdict::recover:
      break;
  }
  ++counts_.recoveries;
  const auto from = sequencer_.recovery_start(topic, e.session, opts_.floor_reach);
  if (!recover(e.session, from, e.seq, sink)) {
    sequencer_.unsettle(topic); // its next message tries again
    return;
  }
  if (sequencer_.offer_recovered(topic, e, sequencer_.resume_after(topic))) {
    ++counts_.live;
    sink(topic, e);
  } else {
    ++counts_.duplicates;
  }
}

bool record_feed::recover(const std::string& session, uint64_t after, uint64_t until,
                          const sink_fn& sink) {
  const uint64_t from = after;
  for (;;) {
    std::optional<history_result> got;
    // The session has at most until - after - 1 records before `until`
    // (numbers are the pool's, over all sessions): ask for no more.
    const uint32_t limit = page_limit(opts_.page, until - after - 1);
    for (int attempt = 0; attempt < opts_.attempts && !(got && got->ok()); ++attempt)
      got = history_.fetch(session, after, limit);
    if (!got || !got->ok()) {
      ++counts_.failed;
      last_error_ = got ? got->error : std::nullopt;
      return false;
    }
    for (const auto& r : got->page.records) {
      if (r.seq >= until) {
        sequencer_.covered(session, from, until - 1);
        return true;
      }
      const auto topic = topic_of_(r);
      if (!takes(topic))
        continue; // the session's other records: not what this subscriber asked for
      if (sequencer_.offer_recovered(topic, r, from)) {
        ++counts_.recovered;
        sink(topic, r);
      } else {
        ++counts_.duplicates;
      }
    }
    if (got->page.more && (got->page.records.empty() || got->page.last_seq <= after)) {
      ++counts_.failed; // a page that says more but moves nowhere would loop forever
      last_error_ = history_error{history_failure::malformed,
                                  "history from " + history_.endpoint() + ": a page of session "
                                    + session + " says more but does not advance"};
      return false;
    }
    after = got->page.last_seq;
    if (!got->page.more) {
      sequencer_.covered(session, from, after);
      return true;
    }
  }
}

bool record_feed::takes(std::string_view topic) const {
  for (const auto& prefix : opts_.prefixes)
    if (topic.substr(0, prefix.size()) == prefix)
      return true;
  return false;
}

std::optional<history_error> record_feed::catch_up(const std::string& session,
                                                   const sink_fn& sink) {
  if (recover(session, sequencer_.session_floor(session), std::numeric_limits<uint64_t>::max(),
              sink))
    return std::nullopt;
  return last_error_;
}

} // namespace paratune
