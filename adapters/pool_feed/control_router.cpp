#include "adapters/pool_feed/control_router.hpp"

#include <vector>

#include <zmq_addon.hpp>

#include "messages/codec.hpp"

namespace paratune {

control_router::control_router(zmq::context_t& ctx, const std::string& bind)
  : socket_(ctx, zmq::socket_type::router) {
  socket_.set(zmq::sockopt::linger, 0);
  socket_.set(zmq::sockopt::maxmsgsize, control::max_message_bytes);
  socket_.bind(bind);
  endpoint_ = socket_.get(zmq::sockopt::last_endpoint);
}

int control_router::serve(const answer_fn& answer, std::chrono::milliseconds wait) {
  zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, wait) == 0)
    return 0;
  int served = 0;
  while (serve_one(answer))
    ++served;
  return served;
}

bool control_router::serve_one(const answer_fn& answer) {
  // From a REQ client: its identity, an empty delimiter, the request.
  std::vector<zmq::message_t> frames;
  if (!zmq::recv_multipart(socket_, std::back_inserter(frames), zmq::recv_flags::dontwait))
    return false;
  if (frames.size() < 2)
    return true; // nothing to answer to
  control::reply reply;
  try {
    reply = answer(wire::unpack<control::request>(frames.back().to_string_view(),
                                                  "control request"));
  } catch (const wire::decode_error& e) {
    ++undecodable_;
    reply = control::refusal(e.what());
  } catch (const std::exception& e) {
    // The client waits for an answer; a failed one still gets one.
    reply = control::refusal(std::string("the request failed: ") + e.what());
  }
  const auto body = wire::pack(reply);
  frames.back().rebuild(body.data(), body.size());
  (void)zmq::send_multipart(socket_, frames, zmq::send_flags::dontwait);
  ++answered_;
  return true;
}

} // namespace paratune
