#pragma once

// Enums on the wire. Inside the program a trial status, a failure kind, a
// session state, a candidate group, a trial metric or a start policy is an enum; in a msgpack body it is
// its word ("succeeded", "oom"), so that stored records stay readable by
// people and by older builds. A word this build does not know fails the
// body's decoding (wire::decode_error), like any malformed field.

#include <stdexcept>
#include <string>
#include <type_traits>

#include <msgpack.hpp>

#include "core/early_stop_policy.hpp"
#include "core/pool_spec.hpp"
#include "core/question.hpp"
#include "core/reasoner_settings.hpp"
#include "core/session_state.hpp"
#include "core/session_stop_policy.hpp"
#include "core/start_policy.hpp"
#include "core/telemetry/trial_metric.hpp"
#include "core/trial_outcome.hpp"
#include "core/tuning/reasoner.hpp"

namespace paratune::wire {

/// Reads an enum's word; false when the word is unknown.
inline bool parse_word(const std::string& w, trial_status& out) { return parse_trial_status(w, out); }
inline bool parse_word(const std::string& w, session_state& out) { return parse_session_state(w, out); }
inline bool parse_word(const std::string& w, candidate_group& out) { return parse_candidate_group(w, out); }
inline bool parse_word(const std::string& w, stop_reason& out) { return parse_stop_reason(w, out); }
inline bool parse_word(const std::string& w, pool_kind& out) { return parse_pool_kind(w, out); }
inline bool parse_word(const std::string& w, slurm_tasks& out) { return parse_slurm_tasks(w, out); }
inline bool parse_word(const std::string& w, trial_metric& out) { return parse_trial_metric(w, out); }
inline bool parse_word(const std::string& w, start_policy& out) { return parse_start_policy(w, out); }
inline bool parse_word(const std::string& w, reasoner_mode& out) { return parse_reasoner_mode(w, out); }
inline bool parse_word(const std::string& w, reasoning_agent& out) { return parse_reasoning_agent(w, out); }
inline bool parse_word(const std::string& w, question_topic& out) { return parse_question_topic(w, out); }
inline bool parse_word(const std::string& w, session_stop_mode& out) { return parse_session_stop_mode(w, out); }
inline bool parse_word(const std::string& w, failure_kind& out) {
  if (w.empty()) { // records written before the enum said "" for no error
    out = failure_kind::none;
    return true;
  }
  return parse_failure_kind(w, out);
}

template <class E>
constexpr bool is_wire_enum = std::is_same_v<E, trial_status> || std::is_same_v<E, failure_kind>
                              || std::is_same_v<E, session_state>
                              || std::is_same_v<E, candidate_group>
                              || std::is_same_v<E, stop_reason>
                              || std::is_same_v<E, pool_kind>
                              || std::is_same_v<E, slurm_tasks>
                              || std::is_same_v<E, trial_metric>
                              || std::is_same_v<E, start_policy>
                              || std::is_same_v<E, reasoner_mode>
                              || std::is_same_v<E, reasoning_agent>
                              || std::is_same_v<E, question_topic>
                              || std::is_same_v<E, session_stop_mode>;

} // namespace paratune::wire

namespace msgpack {
MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS) {
namespace adaptor {

template <class E>
struct convert<E, std::enable_if_t<paratune::wire::is_wire_enum<E>>> {
  const msgpack::object& operator()(const msgpack::object& o, E& v) const {
    const auto word = o.as<std::string>();
    if (!paratune::wire::parse_word(word, v))
      throw std::invalid_argument("unknown value '" + word + "'");
    return o;
  }
};

template <class E>
struct pack<E, std::enable_if_t<paratune::wire::is_wire_enum<E>>> {
  template <class Stream>
  msgpack::packer<Stream>& operator()(msgpack::packer<Stream>& o, const E& v) const {
    o.pack(std::string(to_string(v)));
    return o;
  }
};

} // namespace adaptor
} // MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS)
} // namespace msgpack
