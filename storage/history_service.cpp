#include "storage/history_service.hpp"

#include <string>

#include "messages/ec.hpp"
#include "storage/message_pool.hpp"

namespace paratune {

namespace {

/// What a reply may spend on records: the message limit less room for the
/// reply's own fields and each record's msgpack map keys.
constexpr size_t record_bytes_budget = size_t(control::max_message_bytes) - (64 << 10);

uint32_t page_size(uint32_t asked) {
  return asked == 0 || asked > control::max_history_records ? control::max_history_records
                                                            : asked;
}

} // namespace

control::reply serve_history(const message_pool& pool, const control::request& request) {
  if (request.v != control::protocol_version)
    return control::refusal("control protocol version " + std::to_string(request.v)
                            + " is not served (this build speaks "
                            + std::to_string(control::protocol_version) + ")");
  if (control::parse_control_op(request.op) != control::control_op::history)
    return control::refusal("'" + request.op + "' is not a history request");
  if (request.session.empty())
    return control::refusal("a history request needs a session");
  auto page = pool.session_page(request.session, request.after_seq, page_size(request.limit),
                                record_bytes_budget);
  if (!page)
    return control::refusal("history of session " + request.session + ": "
                            + describe(page.error()));
  control::reply reply;
  reply.ok = true;
  reply.more = page->more;
  reply.last_seq = page->records.empty() ? request.after_seq : page->records.back().seq;
  reply.records = std::move(page->records);
  return reply;
}

} // namespace paratune
