#include "adapters/bus/receive_message.hpp"

#include <iterator>

#include <zmq_addon.hpp>

namespace paratune {

std::optional<std::vector<zmq::message_t>> receive_message(zmq::socket_t& socket,
                                                          std::chrono::milliseconds wait) {
  zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
  zmq::poll(&item, 1, wait);
  if (!(item.revents & ZMQ_POLLIN))
    return std::nullopt;
  std::vector<zmq::message_t> frames;
  if (!zmq::recv_multipart(socket, std::back_inserter(frames), zmq::recv_flags::dontwait))
    return std::nullopt;
  return frames;
}

} // namespace paratune
