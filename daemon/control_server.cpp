#include "daemon/control_server.hpp"

#include <chrono>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "messages/codec.hpp"
#include "messages/ec.hpp"

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

control_server::control_server(zmq::context_t& ctx, const std::string& endpoint, handler h,
                               const std::string& curve_secret_key)
  : socket_(ctx, zmq::socket_type::router), handler_(std::move(h)) {
  if (!curve_secret_key.empty()) {
    socket_.set(zmq::sockopt::curve_server, true);
    socket_.set(zmq::sockopt::curve_secretkey, curve_secret_key);
  }
  socket_.set(zmq::sockopt::maxmsgsize, control::max_message_bytes);
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::router_mandatory, false); // a client gone: its reply is dropped
  try {
    socket_.bind(endpoint);
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("cannot bind the control endpoint " + endpoint + ": " + e.what());
  }
  bound_ = socket_.get(zmq::sockopt::last_endpoint);
  thread_ = std::thread([this] { run(); });
}

control_server::~control_server() {
  stop_ = true;
  if (thread_.joinable())
    thread_.join();
}

std::string control_server::answer(std::string_view bytes) {
  const auto start = std::chrono::steady_clock::now();
  auto checked = check_request(bytes);
  control::reply reply;
  std::string op = "invalid";
  if (!checked) {
    reply = control::refusal(describe(checked.error()));
  } else {
    op = control::to_string(checked->op);
    try {
      reply = handler_(*checked);
    } catch (const std::exception& e) {
      // The daemon lives on: a request it could not serve is refused.
      reply = control::refusal(std::string("the daemon could not answer: ") + e.what());
      spdlog::error("control: {} failed: {}", op, e.what());
    }
  }
  const double s =
    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats_.record(op, reply.ok, s);
  return wire::pack(reply);
}

void control_server::run() {
  zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
  while (!stop_) {
    zmq::poll(&item, 1, std::chrono::milliseconds(100));
    if (!(item.revents & ZMQ_POLLIN))
      continue;
    // [identity][empty delimiter, from REQ][payload]: the reply goes back
    // with the same routing frames.
    std::vector<zmq::message_t> frames;
    for (bool more = true; more;) {
      zmq::message_t m;
      if (!socket_.recv(m, zmq::recv_flags::dontwait))
        break;
      more = m.more();
      frames.push_back(std::move(m));
    }
    if (frames.size() < 2)
      continue; // no routing identity: nobody to answer
    const auto reply = answer(frames.back().to_string_view());
    for (size_t i = 0; i + 1 < frames.size(); ++i)
      socket_.send(frames[i], zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(reply), zmq::send_flags::dontwait);
  }
}

} // namespace paratune
