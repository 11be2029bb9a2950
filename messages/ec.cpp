#include "messages/ec.hpp"

#include <caf/atom.hpp>
#include <caf/message.hpp>

namespace paratune {

const char* to_string(ec code) {
  switch (code) {
    case ec::none: return "none";
    case ec::bad_input: return "bad input";
    case ec::decode_failure: return "decode failure";
    case ec::storage_failure: return "storage failure";
    case ec::launch_failure: return "launch failure";
    case ec::bus_failure: return "bus failure";
    case ec::agent_failure: return "agent failure";
    case ec::session_failure: return "session failure";
    case ec::storage_no_space: return "storage full";
    case ec::storage_io_error: return "storage device error";
    case ec::storage_damaged: return "storage damaged";
  }
  return "unknown error";
}

namespace {

// The context of an error made with make_error(code, "text", ...): its
// values joined by ": ", strings as they are (CAF would quote them).
std::string context_text(const caf::message& context) {
  std::string out;
  for (size_t i = 0; i < context.size(); ++i) {
    if (!out.empty())
      out += ": ";
    out += context.match_element<std::string>(i) ? context.get_as<std::string>(i)
                                                  : context.stringify(i);
  }
  return out;
}

} // namespace

std::string describe(const caf::error& err) {
  if (!err)
    return "no error";
  if (err.category() != caf::atom("paratune"))
    return caf::to_string(err);
  std::string out = to_string(static_cast<ec>(err.code()));
  const auto text = context_text(err.context());
  if (!text.empty())
    out += ": " + text;
  return out;
}

} // namespace paratune
