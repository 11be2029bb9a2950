#include "adapters/bus/zmq_bus.hpp"

#include <array>
#include <cerrno>
#include <future>
#include <optional>
#include <random>

#include <spdlog/spdlog.h>
#include <zmq_addon.hpp>

namespace paratune {

namespace {

constexpr auto poll_interval = std::chrono::milliseconds(5);

void set_common(zmq::socket_t& s) {
  s.set(zmq::sockopt::linger, 0); // never block context shutdown
}

std::string unique_suffix() {
  static std::atomic<int> counter{0};
  return std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

} // namespace

bus_endpoints bus_endpoints::inproc(const std::string& name) {
  return {"inproc://" + name + "-pub", "inproc://" + name + "-sub"};
}

bus_proxy::bus_proxy(zmq::context_t& ctx, const bus_endpoints& ep, int high_water_mark)
  : ctx_(ctx),
    control_endpoint_("inproc://paratune-proxy-control-" + unique_suffix()),
    xsub_(ctx, zmq::socket_type::xsub),
    xpub_(ctx, zmq::socket_type::xpub) {
  set_common(xsub_);
  set_common(xpub_);
  xsub_.set(zmq::sockopt::rcvhwm, high_water_mark);
  xpub_.set(zmq::sockopt::sndhwm, high_water_mark);
  xsub_.bind(ep.publish);
  xpub_.bind(ep.subscribe);
  bound_ = {xsub_.get(zmq::sockopt::last_endpoint), xpub_.get(zmq::sockopt::last_endpoint)};
  zmq::socket_t ready(ctx_, zmq::socket_type::pair);
  ready.bind(control_endpoint_ + "-ready");
  thread_ = std::thread([this] {
    zmq::socket_t control(ctx_, zmq::socket_type::pair);
    set_common(control);
    control.bind(control_endpoint_);
    {
      zmq::socket_t ready(ctx_, zmq::socket_type::pair);
      ready.connect(control_endpoint_ + "-ready");
      ready.send(zmq::str_buffer("up"), zmq::send_flags::none);
    }
    try {
      zmq::proxy_steerable(xsub_, xpub_, zmq::socket_ref{}, control);
    } catch (const zmq::error_t& e) {
      if (e.num() != ETERM)
        spdlog::error("bus proxy stopped: {}", e.what());
    }
  });
  zmq::message_t up;
  (void)ready.recv(up); // the control socket is bound before we return
}

bus_proxy::~bus_proxy() {
  try {
    zmq::socket_t control(ctx_, zmq::socket_type::pair);
    set_common(control);
    control.connect(control_endpoint_);
    control.send(zmq::str_buffer("TERMINATE"), zmq::send_flags::none);
  } catch (const zmq::error_t& e) {
    spdlog::warn("bus proxy stop: {}", e.what());
  }
  thread_.join();
}

std::array<char, bus_sequence::size> bus_sequence::encode_fixed() const {
  std::array<char, size> out{};
  size_t at = 0;
  for (uint64_t v : {publisher, seq})
    for (int shift = 56; shift >= 0; shift -= 8)
      out[at++] = static_cast<char>((v >> shift) & 0xff);
  return out;
}

std::string bus_sequence::encode() const {
  const auto bytes = encode_fixed();
  return {bytes.data(), bytes.size()};
}

bool bus_sequence::decode(std::string_view frame, bus_sequence& out) {
  if (frame.size() != size)
    return false;
  auto get = [&](size_t at) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i)
      v = (v << 8) | static_cast<unsigned char>(frame[at + i]);
    return v;
  };
  out = {get(0), get(8)};
  return out.publisher != 0;
}

namespace {

uint64_t random_publisher_id() {
  std::random_device rd;
  uint64_t id = 0;
  while (id == 0)
    id = (uint64_t(rd()) << 32) | rd();
  return id;
}

} // namespace

bus_publisher::bus_publisher(zmq::context_t& ctx, const bus_endpoints& ep, bool sees_subscriptions,
                             int high_water_mark)
  : sees_subscriptions_(sees_subscriptions),
    socket_(ctx, sees_subscriptions ? zmq::socket_type::xpub : zmq::socket_type::pub),
    id_(random_publisher_id()) {
  set_common(socket_);
  socket_.set(zmq::sockopt::sndhwm, high_water_mark);
  socket_.connect(ep.publish);
}

void bus_publisher::read_subscriptions() {
  zmq::message_t m;
  while (socket_.recv(m, zmq::recv_flags::dontwait)) {
    // "\x01PREFIX" subscribes, "\x00PREFIX" unsubscribes.
    const auto text = m.to_string_view();
    if (!text.empty() && text[0] == 1)
      prefixes_.emplace(text.substr(1));
    else if (!text.empty() && text[0] == 0)
      prefixes_.erase(std::string(text.substr(1)));
  }
}

bool bus_publisher::takes(const std::string& topic) const {
  for (const auto& prefix : prefixes_)
    if (topic.rfind(prefix, 0) == 0)
      return true;
  return false;
}

bool bus_publisher::await_subscriber(const std::string& topic, std::chrono::milliseconds timeout) {
  if (!sees_subscriptions_)
    return false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    read_subscriptions();
    const auto now = std::chrono::steady_clock::now();
    if (takes(topic))
      return true;
    if (now >= deadline)
      return false;
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    try {
      zmq::poll(&item, 1, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR)
        throw;
      return false; // a signal: the caller is being stopped
    }
  }
}

void bus_publisher::publish(std::string_view topic, std::string_view payload) {
  auto it = next_seq_.find(topic);
  if (it == next_seq_.end())
    it = next_seq_.emplace(std::string(topic), 0).first;
  const auto seq = bus_sequence{id_, ++it->second}.encode_fixed();
  const std::string_view seq_frame(seq.data(), seq.size());
  if (signer_) {
    const auto mac = signer_(topic, payload, seq_frame);
    std::array<zmq::const_buffer, 4> parts{zmq::buffer(topic), zmq::buffer(payload),
                                           zmq::buffer(seq), zmq::buffer(mac)};
    (void)zmq::send_multipart(socket_, parts, zmq::send_flags::dontwait);
    return;
  }
  std::array<zmq::const_buffer, 3> parts{zmq::buffer(topic), zmq::buffer(payload),
                                         zmq::buffer(seq)};
  (void)zmq::send_multipart(socket_, parts, zmq::send_flags::dontwait);
}

bus_subscriber::bus_subscriber(zmq::context_t& ctx, const bus_endpoints& ep) {
  std::promise<std::string> connected; // empty when the socket connected
  auto result = connected.get_future();
  thread_ = std::thread([this, &ctx, ep, &connected] { run(ctx, ep, connected); });
  const auto error = result.get();
  if (!error.empty()) {
    thread_.join();
    throw std::runtime_error("cannot connect a bus subscriber to " + ep.subscribe + ": " + error);
  }
}

bus_subscriber::~bus_subscriber() {
  stop();
}

void bus_subscriber::stop() {
  stop_ = true;
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id())
    thread_.join();
}

int bus_subscriber::subscribe(const std::string& prefix, handler h) {
  std::lock_guard<std::mutex> guard{mutex_};
  const int id = next_id_++;
  entries_.push_back({id, prefix, std::move(h)});
  pending_.emplace_back(true, prefix);
  return id;
}

void bus_subscriber::unsubscribe(int id) {
  std::lock_guard<std::mutex> guard{mutex_};
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->id == id) {
      pending_.emplace_back(false, it->prefix);
      entries_.erase(it);
      return;
    }
}

bool bus_subscriber::await_connected(bus_publisher& pub,
                                     std::chrono::milliseconds timeout) {
  const auto topic = "_hello." + unique_suffix();
  std::atomic<bool> seen{false};
  const int id = subscribe(topic, [&](const std::string&, const std::string&) { seen = true; });
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!seen && std::chrono::steady_clock::now() < deadline) {
    pub.publish(topic, "hello");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  unsubscribe(id);
  // Let the poller finish any hello it is dispatching before `seen` dies.
  std::this_thread::sleep_for(2 * poll_interval);
  return seen;
}

void bus_subscriber::apply_pending(zmq::socket_t& sub) {
  std::vector<std::pair<bool, std::string>> work;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    work.swap(pending_);
  }
  for (const auto& [add, prefix] : work) {
    if (add)
      sub.set(zmq::sockopt::subscribe, prefix);
    else
      sub.set(zmq::sockopt::unsubscribe, prefix);
  }
}

void bus_subscriber::on_gap(gap_handler h) {
  std::lock_guard<std::mutex> guard{mutex_};
  gap_handler_ = std::move(h);
}

std::map<uint64_t, uint64_t> bus_subscriber::gaps_by_publisher() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return gaps_by_publisher_;
}

void bus_subscriber::check_sequence(const std::string& topic, const bus_sequence& s) {
  auto [it, first] = last_seq_.try_emplace({s.publisher, topic}, s.seq);
  if (first)
    return; // joined late when s.seq > 1: earlier messages were never ours
  const uint64_t expected = it->second + 1;
  it->second = std::max(it->second, s.seq);
  if (s.seq <= expected)
    return;
  const uint64_t lost = s.seq - expected;
  ++gaps_;
  missed_ += lost;
  gap_handler h;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    ++gaps_by_publisher_[s.publisher];
    h = gap_handler_;
  }
  spdlog::warn("bus: {} message(s) on '{}' from publisher {:016x} were lost", lost, topic,
               s.publisher);
  if (h)
    h(topic, lost);
}

void bus_subscriber::dispatch(const std::string& topic, const std::string& payload) {
  ++received_;
  std::vector<handler> targets;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    for (const auto& e : entries_)
      if (topic.compare(0, e.prefix.size(), e.prefix) == 0)
        targets.push_back(e.h);
  }
  for (const auto& h : targets) {
    try {
      h(topic, payload);
    } catch (const std::exception& e) {
      ++dropped_;
      spdlog::warn("bus handler for '{}' failed: {}", topic, e.what());
    }
  }
}

void bus_subscriber::run(zmq::context_t& ctx, bus_endpoints ep,
                         std::promise<std::string>& connected) {
  // The socket lives on this thread; a connect that throws here must reach
  // the constructor's caller, not std::terminate.
  std::optional<zmq::socket_t> socket;
  try {
    socket.emplace(ctx, zmq::socket_type::sub);
    set_common(*socket);
    socket->set(zmq::sockopt::rcvhwm, default_high_water_mark);
    socket->connect(ep.subscribe);
  } catch (const zmq::error_t& e) {
    connected.set_value(e.what());
    return;
  }
  connected.set_value("");
  auto& sub = *socket;
  zmq::pollitem_t items[] = {{sub.handle(), 0, ZMQ_POLLIN, 0}};
  while (!stop_) {
    apply_pending(sub);
    zmq::poll(items, 1, poll_interval);
    if (!(items[0].revents & ZMQ_POLLIN))
      continue;
    std::vector<zmq::message_t> frames;
    while (zmq::recv_multipart(sub, std::back_inserter(frames), zmq::recv_flags::dontwait)) {
      bus_sequence seq;
      if (frames.size() != 3 || !bus_sequence::decode(frames[2].to_string_view(), seq)) {
        ++dropped_;
        spdlog::warn("bus: dropped a message with {} frame(s) and no sequence", frames.size());
      } else {
        const auto topic = frames[0].to_string();
        check_sequence(topic, seq);
        dispatch(topic, frames[1].to_string());
      }
      frames.clear();
    }
  }
}

} // namespace paratune
