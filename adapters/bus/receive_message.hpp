#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include <zmq.hpp>

namespace paratune {

/// Waits up to `wait` for one whole message on `socket` and takes all its
/// frames; nullopt when none arrived in time. The loops of the sockets a
/// thread serves alone (the relay ingress, the ZAP handler) turn on it, so
/// that they see their stop flag at least every `wait`.
std::optional<std::vector<zmq::message_t>> receive_message(zmq::socket_t& socket,
                                                          std::chrono::milliseconds wait);

} // namespace paratune
