#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <caf/expected.hpp>

#include "dashboard/session_reader.hpp"
#include "dashboard/session_view.hpp"

namespace paratune {

/// What a route answers: an HTTP status and a body, with the
/// Content-Security-Policy that body needs.
struct dashboard_answer {
  int status = 200;
  std::string content_type;
  std::string body;
  std::string policy;
};

/// The dashboard's routes without the HTTP server: each reads the pool
/// (through a session_reader) and renders one page, JSON document or chart.
/// GPU sessions and TPU sessions both have a row, a page and a JSON document;
/// the MFU chart and the panels are a GPU session's (404 for a TPU one).
/// A session id that is not a plain name is answered 400, a session the pool
/// lacks 404, a pool or record that does not read 500, each with a short
/// text body saying so. Safe to call from several threads.
class dashboard_content {
public:
  /// A session id: 1 to 128 of [A-Za-z0-9._-].
  static constexpr std::size_t max_session_id = 128;

  dashboard_content(std::shared_ptr<const message_pool> pool, std::size_t max_sessions);

  dashboard_answer sessions_page();
  dashboard_answer sessions_json();
  dashboard_answer session_page(const std::string& id);
  dashboard_answer session_json(const std::string& id);
  dashboard_answer mfu_chart(const std::string& id);
  /// The answer and the charts as an HTML fragment (session_panels).
  dashboard_answer panels(const std::string& id);

private:
  /// The listed sessions of each kind, each newest first.
  struct listed_sessions {
    std::vector<session_view> gpu;
    std::vector<tpu_session_view> tpu;
  };
  /// The tuning sessions, newest first, at most max_sessions_ of both kinds.
  caf::expected<listed_sessions> newest_sessions();
  /// One session's view, or the answer that refuses it (400, 404, 500).
  std::variant<any_session_view, dashboard_answer> session(const std::string& id);

  session_reader reader_;
  std::size_t max_sessions_;
};

} // namespace paratune
