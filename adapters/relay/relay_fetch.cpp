#include "adapters/relay/relay_fetch.hpp"

#include <cerrno>

namespace paratune {

std::optional<fetch_reply> fetch_from_relay(zmq::context_t& ctx, const std::string& endpoint,
                                            fetch_request request,
                                            std::chrono::milliseconds timeout) {
  try {
    zmq::socket_t req(ctx, zmq::socket_type::req);
    req.set(zmq::sockopt::linger, 0);
    req.set(zmq::sockopt::sndtimeo, int(timeout.count()));
    req.set(zmq::sockopt::rcvtimeo, int(timeout.count()));
    req.set(zmq::sockopt::maxmsgsize, int64_t(max_fetch_bytes + max_fetch_lines * 64));
    req.connect(endpoint);
    if (!req.send(zmq::buffer(encode(request)), zmq::send_flags::none))
      return std::nullopt;
    zmq::message_t reply;
    if (!req.recv(reply, zmq::recv_flags::none) || reply.more())
      return std::nullopt;
    return decode_fetch_reply(reply.to_string_view());
  } catch (const zmq::error_t&) {
    return std::nullopt; // a malformed endpoint, a closed context
  }
}

relay_fetch_server::relay_fetch_server(zmq::context_t& ctx, const std::string& bind)
  : socket_(ctx, zmq::socket_type::rep) {
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::maxmsgsize, int64_t(256));
  socket_.bind(bind);
  bound_ = socket_.get(zmq::sockopt::last_endpoint);
}

std::string relay_fetch_server::announced(const std::string& host) const {
  const auto colon = bound_.rfind(':');
  return "tcp://" + host + bound_.substr(colon);
}

void relay_fetch_server::serve(const relay_line_buffer& lines, std::chrono::milliseconds wait) {
  try {
    answer(lines, wait);
  } catch (const zmq::error_t& e) {
    if (e.num() != EINTR)
      throw; // a signal (scancel's SIGTERM) only ends this turn
  }
}

void relay_fetch_server::answer(const relay_line_buffer& lines, std::chrono::milliseconds wait) {
  zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, wait) == 0)
    return;
  zmq::message_t request;
  if (!socket_.recv(request, zmq::recv_flags::dontwait))
    return;
  const bool one_frame = !request.more();
  for (bool more = request.more(); more;) { // REP answers only once the whole request is read
    zmq::message_t part;
    if (!socket_.recv(part, zmq::recv_flags::none))
      break;
    more = part.more();
  }
  fetch_reply reply;
  reply.last_seq = lines.size() ? lines.last_seq() : 0;
  if (const auto r = one_frame ? decode_fetch_request(request.to_string_view()) : std::nullopt)
    reply.lines = lines.range(r->first, r->last, max_fetch_lines, max_fetch_bytes);
  socket_.send(zmq::buffer(encode(reply)), zmq::send_flags::none);
  ++served_;
}

} // namespace paratune
