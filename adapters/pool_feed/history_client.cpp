#include "adapters/pool_feed/history_client.hpp"

#include "messages/codec.hpp"

namespace paratune {

namespace {

/// What makes a decoded page unusable, or "": a subscriber trusts a page's
/// order and session to deliver each record once.
std::string page_defect(const control::reply& page, const std::string& session,
                        uint64_t after_seq) {
  uint64_t previous = after_seq;
  for (const auto& r : page.records) {
    if (r.v < 1 || r.v > wire::schema_version || r.type.empty())
      return "record " + std::to_string(r.seq) + " is not an envelope this build reads";
    if (r.session != session)
      return "a record of session '" + r.session + "' in a page of '" + session + "'";
    if (r.seq <= previous)
      return "record " + std::to_string(r.seq) + " is out of order after "
             + std::to_string(previous);
    previous = r.seq;
  }
  if (page.last_seq < previous)
    return "last_seq " + std::to_string(page.last_seq) + " is below the page's last record "
           + std::to_string(previous);
  return "";
}

} // namespace

const char* to_string(history_failure kind) {
  switch (kind) {
    case history_failure::unreachable: return "unreachable";
    case history_failure::timeout: return "timeout";
    case history_failure::malformed: return "malformed";
    case history_failure::refused: return "refused";
  }
  return "?";
}

history_client::history_client(zmq::context_t& ctx, std::string endpoint,
                               std::chrono::milliseconds timeout)
  : ctx_(ctx), endpoint_(std::move(endpoint)), timeout_(timeout) {}

history_error history_client::failure(history_failure kind, const std::string& what) const {
  return {kind, "history from " + endpoint_ + ": " + what};
}

void history_client::connect() {
  socket_.emplace(ctx_, zmq::socket_type::req);
  socket_->set(zmq::sockopt::linger, 0);
  socket_->set(zmq::sockopt::sndtimeo, int(timeout_.count()));
  socket_->set(zmq::sockopt::rcvtimeo, int(timeout_.count()));
  socket_->set(zmq::sockopt::maxmsgsize, control::max_message_bytes);
  socket_->connect(endpoint_);
}

history_result history_client::fetch(const std::string& session, uint64_t after_seq,
                                     uint32_t limit) {
  control::request ask;
  ask.op = control::to_string(control::control_op::history);
  ask.session = session;
  ask.after_seq = after_seq;
  ask.limit = limit;
  history_result out;
  ++requests_;
  zmq::message_t reply;
  try {
    if (!socket_)
      connect();
    if (!socket_->send(zmq::buffer(wire::pack(ask)), zmq::send_flags::none)) {
      socket_.reset();
      out.error = failure(history_failure::unreachable, "the request could not be sent");
      return out;
    }
    if (!socket_->recv(reply, zmq::recv_flags::none)) {
      socket_.reset(); // a REQ socket waiting for its reply cannot ask again
      out.error = failure(history_failure::timeout, "no reply within "
                                                      + std::to_string(timeout_.count()) + " ms");
      return out;
    }
  } catch (const zmq::error_t& e) {
    socket_.reset();
    out.error = failure(history_failure::unreachable, e.what());
    return out;
  }
  if (reply.more()) {
    socket_.reset(); // the rest of a multi-frame reply would answer the next request
    out.error = failure(history_failure::malformed, "the reply has more than one frame");
    return out;
  }
  return decode_history_reply(reply.to_string_view(), session, after_seq, endpoint_);
}

history_result decode_history_reply(std::string_view bytes, const std::string& session,
                                    uint64_t after_seq, const std::string& endpoint) {
  history_result out;
  auto fail = [&](history_failure kind, const std::string& what) {
    out.error = history_error{kind, "history from " + endpoint + ": " + what};
    return out;
  };
  try {
    out.page = wire::unpack<control::reply>(bytes, "history reply");
  } catch (const wire::decode_error& e) {
    return fail(history_failure::malformed, e.what());
  }
  if (!out.page.ok)
    return fail(history_failure::refused, out.page.error);
  if (auto why = page_defect(out.page, session, after_seq); !why.empty())
    return fail(history_failure::malformed, why);
  return out;
}

} // namespace paratune
