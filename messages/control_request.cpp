#include "messages/control_request.hpp"

#include "core/job_spec.hpp"
#include "core/text.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"

namespace paratune {

namespace {

constexpr size_t max_session_id = 128;
constexpr int max_trials = 100000;
constexpr int max_thread = 1000000; // as `paratune ask --thread` takes it

caf::error refuse(std::string why) {
  return caf::make_error(ec::bad_input, std::move(why));
}

bool needs_session(control::control_op op) {
  using control::control_op;
  return op == control_op::status || op == control_op::cancel || op == control_op::history
         || op == control_op::ask;
}

} // namespace

caf::expected<checked_request> check_request(std::string_view bytes) {
  if (int64_t(bytes.size()) > control::max_message_bytes)
    return refuse("the request is " + std::to_string(bytes.size()) + " bytes, more than "
                  + std::to_string(control::max_message_bytes));
  checked_request out;
  try {
    out.fields = wire::unpack<control::request>(bytes, "control request");
  } catch (const wire::decode_error& e) {
    return refuse(e.what());
  }
  const auto& r = out.fields;
  if (r.v != control::protocol_version)
    return refuse("protocol version " + std::to_string(r.v) + " is not "
                  + std::to_string(control::protocol_version));
  const auto op = control::parse_control_op(r.op);
  if (!op)
    return refuse("unknown operation '" + printable_excerpt(r.op, 64) + "'");
  out.op = *op;
  if (needs_session(*op) && !is_plain_name(r.session, max_session_id))
    return refuse(std::string(control::to_string(*op)) + ": '" + printable_excerpt(r.session, 64)
                  + "' is not a session id (letters, digits, '.', '_', '-', at most "
                  + std::to_string(max_session_id) + ")");
  if (*op == control::control_op::submit) {
    if (r.job_yaml.empty())
      return refuse("submit: the job file's text is empty");
    if (r.job_yaml.size() > max_job_text_bytes)
      return refuse("submit: the job file is " + std::to_string(r.job_yaml.size())
                    + " bytes, more than " + std::to_string(max_job_text_bytes));
    if (r.trials < 0 || r.trials > max_trials)
      return refuse("submit: trials " + std::to_string(r.trials) + " is not in 0.."
                    + std::to_string(max_trials));
  }
  if (*op == control::control_op::ask) {
    if (r.question.size() > control::max_question_bytes)
      return refuse("ask: the question is " + std::to_string(r.question.size())
                    + " bytes, more than " + std::to_string(control::max_question_bytes));
    if (r.thread < 0 || r.thread > max_thread)
      return refuse("ask: thread " + std::to_string(r.thread) + " is not in 0.."
                    + std::to_string(max_thread));
  }
  return out;
}

} // namespace paratune
