#include "daemon/control_server.hpp"

#include <chrono>
#include <iterator>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <zmq_addon.hpp>

#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "core/text.hpp"

namespace paratune {

void control_stats::record(const std::string& op, bool ok, double seconds) {
  std::lock_guard<std::mutex> guard{mutex_};
  ++requests_[{op, ok}];
  for (size_t i = 0; i < bucket_s.size(); ++i)
    if (seconds <= bucket_s[i])
      ++buckets_[i];
  ++count_;
  sum_s_ += seconds;
}

std::string control_stats::prometheus() const {
  std::lock_guard<std::mutex> guard{mutex_};
  std::string out = "# HELP paratune_control_requests_total Control requests answered, by "
                    "operation and outcome.\n# TYPE paratune_control_requests_total counter\n";
  for (const auto& [key, n] : requests_)
    out += fmt::format("paratune_control_requests_total{{op=\"{}\",outcome=\"{}\"}} {}\n",
                       key.first, key.second ? "ok" : "refused", n);
  out += "# HELP paratune_control_request_seconds Time to answer a control request.\n"
         "# TYPE paratune_control_request_seconds histogram\n";
  for (size_t i = 0; i < bucket_s.size(); ++i)
    out += fmt::format("paratune_control_request_seconds_bucket{{le=\"{}\"}} {}\n", bucket_s[i],
                       buckets_[i]);
  out += fmt::format("paratune_control_request_seconds_bucket{{le=\"+Inf\"}} {}\n", count_);
  out += fmt::format("paratune_control_request_seconds_sum {:.6f}\n", sum_s_);
  out += fmt::format("paratune_control_request_seconds_count {}\n", count_);
  return out;
}

namespace {

/// Seconds on the steady clock, for the submit rate limit.
double steady_seconds(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Who sent `m`, as the ZAP handler named it; "unknown" without one.
std::string user_of(zmq::message_t& m) {
  try {
    return m.gets("User-Id");
  } catch (const zmq::error_t&) {
    return "unknown";
  }
}

} // namespace

control_server::control_server(zmq::context_t& ctx, const std::string& endpoint, handler h,
                               const std::string& curve_secret_key, control_limits limits)
  : ctx_(ctx), socket_(ctx, zmq::socket_type::router), replies_(ctx, zmq::socket_type::pull),
    handler_(std::move(h)), limits_(limits) {
  if (!curve_secret_key.empty()) {
    socket_.set(zmq::sockopt::curve_server, true);
    socket_.set(zmq::sockopt::curve_secretkey, curve_secret_key);
  }
  // Every client passes the context's ZAP handler (zap_handler) before
  // any of its messages is read; a NULL-mechanism client is asked about
  // only when the socket names a domain.
  socket_.set(zmq::sockopt::zap_domain, "paratune-control");
  // Per frame: ZeroMQ has no limit on a message's frames together, which
  // take_request checks once the message is whole.
  socket_.set(zmq::sockopt::maxmsgsize, limits_.max_message_bytes);
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::router_mandatory, false); // a client gone: its reply is dropped
  try {
    socket_.bind(endpoint);
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("cannot bind the control endpoint " + endpoint + ": " + e.what());
  }
  bound_ = socket_.get(zmq::sockopt::last_endpoint);
  replies_endpoint_ = fmt::format("inproc://paratune-control-replies-{}", fmt::ptr(this));
  replies_.set(zmq::sockopt::linger, 0);
  replies_.bind(replies_endpoint_);
  submits_.workers.emplace_back([this] { work(submits_); });
  for (int i = 0; i < 2; ++i)
    reads_.workers.emplace_back([this] { work(reads_); });
  thread_ = std::thread([this] { run(); });
}

control_server::~control_server() {
  stop_ = true;
  for (auto* l : {&submits_, &reads_}) {
    {
      std::lock_guard<std::mutex> guard{l->mutex};
    }
    l->ready.notify_all();
    for (auto& w : l->workers)
      w.join();
  }
  if (thread_.joinable())
    thread_.join();
}

control::reply control_server::answer(const job& j) {
  control::reply reply;
  try {
    reply = handler_(j.request);
  } catch (const std::exception& e) {
    // The daemon lives on: a request it could not serve is refused.
    reply = control::refusal(std::string("the daemon could not answer: ") + e.what());
    spdlog::error("control: {} from {} failed: {}", control::to_string(j.request.op), j.user,
                  e.what());
  }
  reply.error = utf8_escaped(reply.error); // a strict msgpack client reads str as UTF-8
  return reply;
}

void control_server::work(lane& l) {
  zmq::socket_t push{ctx_, zmq::socket_type::push};
  push.set(zmq::sockopt::linger, 0);
  push.connect(replies_endpoint_);
  for (;;) {
    job j;
    {
      std::unique_lock<std::mutex> lock{l.mutex};
      l.ready.wait(lock, [&] { return stop_ || !l.queue.empty(); });
      if (stop_)
        return;
      j = std::move(l.queue.front());
      l.queue.pop_front();
    }
    const auto reply = answer(j);
    stats_.record(control::to_string(j.request.op), reply.ok, seconds_since(j.received));
    // [slot][routing frames][reply]: the socket thread forwards it.
    push.send(zmq::buffer(j.slot), zmq::send_flags::sndmore);
    for (auto& f : j.route)
      push.send(f, zmq::send_flags::sndmore);
    push.send(zmq::buffer(wire::pack(reply)), zmq::send_flags::none);
  }
}

void control_server::send_now(std::vector<zmq::message_t>& route, const control::reply& reply,
                              const std::string& op,
                              std::chrono::steady_clock::time_point received) {
  stats_.record(op, reply.ok, seconds_since(received));
  for (auto& f : route)
    socket_.send(f, zmq::send_flags::sndmore);
  socket_.send(zmq::buffer(wire::pack(reply)), zmq::send_flags::dontwait);
}

void control_server::take_request(std::vector<zmq::message_t> frames) {
  const auto received = std::chrono::steady_clock::now();
  if (frames.size() < 2)
    return; // no routing identity: nobody to answer
  const auto user = user_of(frames.back());
  int64_t bytes = 0;
  for (const auto& f : frames)
    bytes += int64_t(f.size());
  std::vector<zmq::message_t> route;
  if (frames.size() > limits_.max_frames || bytes > limits_.max_message_bytes) {
    // Answer to the identity (and a REQ client's delimiter) alone.
    route.push_back(std::move(frames[0]));
    if (frames[1].size() == 0)
      route.push_back(std::move(frames[1]));
    frames.clear();
    spdlog::warn("control: refused a request of {} frames and {} bytes from {}", route.size(),
                 bytes, user);
    return send_now(route,
                    control::refusal(fmt::format("a request is one message of at most {} frames "
                                                 "and {} bytes; this one had more",
                                                 limits_.max_frames, limits_.max_message_bytes)),
                    "invalid", received);
  }
  for (size_t i = 0; i + 1 < frames.size(); ++i)
    route.push_back(std::move(frames[i]));
  auto checked = check_request(frames.back().to_string_view());
  if (!checked)
    return send_now(route, control::refusal(utf8_escaped(describe(checked.error()))), "invalid",
                    received);
  const std::string op = control::to_string(checked->op);
  const bool submit = checked->op == control::control_op::submit;
  // An ask writes to the pool and may wait on a model for a minute: it
  // goes with the submits, so that list, cancel and watch stay quick.
  const bool writes = submit || checked->op == control::control_op::ask;
  // Submits and reads are counted apart: a user's own flood of submits
  // never keeps their list or cancel from being heard.
  const auto slot = user + (writes ? " submit" : " read");
  if (in_flight_[slot] >= limits_.max_in_flight_per_user)
    return send_now(route,
                    control::refusal(fmt::format("{} {} requests of {} are in flight already; "
                                                 "wait for their answers",
                                                 in_flight_[slot], writes ? "submit" : "read",
                                                 user)),
                    op, received);
  auto& l = writes ? submits_ : reads_;
  if (submit) {
    auto& rate = submit_rate_.try_emplace(user, limits_.submits_per_s, limits_.submit_burst)
                   .first->second;
    if (!rate.take(steady_seconds(received)))
      return send_now(route,
                      control::refusal(fmt::format("too many submits from {}: at most {} a "
                                                   "second; submit again shortly",
                                                   user, limits_.submits_per_s)),
                      op, received);
  }
  {
    std::lock_guard<std::mutex> guard{l.mutex};
    if (submit && l.queue.size() >= limits_.max_queued_submits)
      return send_now(route,
                      control::refusal(fmt::format("the daemon has {} submits waiting; submit "
                                                   "again shortly",
                                                   l.queue.size())),
                      op, received);
    l.queue.push_back(job{std::move(route), slot, user, std::move(*checked), received});
  }
  ++in_flight_[slot];
  l.ready.notify_one();
}

void control_server::forward_reply() {
  std::vector<zmq::message_t> frames;
  if (!zmq::recv_multipart(replies_, std::back_inserter(frames), zmq::recv_flags::dontwait))
    return;
  if (frames.size() < 3)
    return;
  if (auto it = in_flight_.find(frames[0].to_string()); it != in_flight_.end() && --it->second == 0)
    in_flight_.erase(it);
  for (size_t i = 1; i + 1 < frames.size(); ++i)
    socket_.send(frames[i], zmq::send_flags::sndmore);
  socket_.send(frames.back(), zmq::send_flags::dontwait);
}

void control_server::run() {
  zmq::pollitem_t items[] = {{socket_.handle(), 0, ZMQ_POLLIN, 0},
                             {replies_.handle(), 0, ZMQ_POLLIN, 0}};
  while (!stop_) {
    zmq::poll(items, 2, std::chrono::milliseconds(100));
    if (items[1].revents & ZMQ_POLLIN)
      forward_reply();
    if (!(items[0].revents & ZMQ_POLLIN))
      continue;
    // [identity][empty delimiter, from REQ][payload]: the reply goes back
    // with the same routing frames.
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(socket_, std::back_inserter(frames), zmq::recv_flags::dontwait))
      continue;
    take_request(std::move(frames));
  }
}

} // namespace paratune
