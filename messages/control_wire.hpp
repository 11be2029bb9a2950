#pragma once

// The daemon's control protocol: one msgpack request per ZeroMQ message to
// its ROUTER endpoint, one msgpack reply back (the client is a REQ or
// DEALER socket). Like every other body, an operation travels as its word
// ("submit") and is an enum inside the program.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <msgpack.hpp>

#include "messages/codec.hpp"
#include "messages/wire_types.hpp"

namespace paratune::control {

/// The protocol's version; a request of another version is refused.
constexpr int protocol_version = 1;

/// Requests and replies above this many bytes are refused (the ROUTER
/// socket's ZMQ_MAXMSGSIZE drops them before they are read).
constexpr int64_t max_message_bytes = 4 << 20;

/// At most this many records in one history reply: a client reads a long
/// history in pages (after_seq = the reply's last_seq).
constexpr uint32_t max_history_records = 5000;

enum class control_op {
  health,  ///< is the daemon up: its version, uptime, bus and session counts
  submit,  ///< start a tuning session from a job file's text
  list,    ///< every session the pool holds, newest first
  status,  ///< one session's row
  cancel,  ///< end a running session (its trials are stopped)
  history, ///< a session's records after a pool sequence number, in pages
  ask,     ///< a question about a session, answered and stored by the daemon
};

/// A question `ask` takes: at most this many bytes.
constexpr size_t max_question_bytes = 4096;

const char* to_string(control_op op);
std::optional<control_op> parse_control_op(std::string_view word);

struct request {
  int v = protocol_version;
  std::string op;            ///< a control_op's word
  std::string session;       ///< status, cancel, history
  std::string job_yaml;      ///< submit: the job file's text
  std::string job_path;      ///< submit: where the client read it (its relative paths)
  int trials = 0;            ///< submit: the trial budget, 0 for the job's own
  uint64_t after_seq = 0;    ///< history: records with a greater sequence number
  uint32_t limit = 0;        ///< history: at most this many; 0 for max_history_records
  std::string question;      ///< ask: in English
  int thread = 0;            ///< ask: the thread to follow up on, 0 for a new one
  MSGPACK_DEFINE_MAP(v, op, session, job_yaml, job_path, trials, after_seq, limit, question,
                     thread)
};

/// A session as `list` and `status` show it.
struct session_row {
  std::string id;
  std::string job_name;
  std::string model;
  std::string cluster;
  std::string kind = "gpu";     ///< "gpu" (OptiCo's loop) or "tpu" (ASAP's)
  std::string state;            ///< a session_state's word
  int trials_done = 0;
  int trials_budget = 0;
  int running = 0;              ///< trials in flight
  int best_trial = 0;
  double best_tflops = 0;
  int64_t opened_ms = 0;        ///< Unix time of its session_opened record
  std::string text;             ///< why it ended
  MSGPACK_DEFINE_MAP(id, job_name, model, cluster, kind, state, trials_done, trials_budget,
                     running, best_trial, best_tflops, opened_ms, text)
};

struct reply {
  int v = protocol_version;
  bool ok = false;
  std::string error;                    ///< why the request was refused, in words
  std::string session;                  ///< submit: the new session's id
  std::vector<session_row> sessions;    ///< list, status
  std::vector<wire::envelope> records;  ///< history; ask: the stored turn (dialogue_turn)
  uint64_t last_seq = 0;                ///< history: the last record's sequence number
  bool more = false;                    ///< history: a page limit cut the reply
  // health
  std::string version;
  int64_t uptime_ms = 0;
  std::string bus_subscribe;            ///< where `watch` subscribes
  int active_sessions = 0;
  uint64_t pool_next_seq = 0;
  // health and list: the ports the daemon took (free ones by default)
  std::string relay_ingress;            ///< where trials' relays publish, as handed to them
  std::string http;                     ///< the dashboard's HOST:PORT; empty when off
  MSGPACK_DEFINE_MAP(v, ok, error, session, sessions, records, last_seq, more, version,
                     uptime_ms, bus_subscribe, active_sessions, pool_next_seq, relay_ingress,
                     http)
};

inline reply refusal(std::string why) {
  reply r;
  r.error = std::move(why);
  return r;
}

} // namespace paratune::control

namespace paratune::wire {

// Compiled once, in codec_instances.cpp (see codec.hpp).
PARATUNE_EXTERN_CODEC(control::request)
PARATUNE_EXTERN_CODEC(control::reply)

} // namespace paratune::wire
