#include "dashboard/dashboard_content.hpp"

#include <algorithm>
#include <functional>

#include "core/text.hpp"
#include "dashboard/dashboard_json.hpp"
#include "dashboard/page_frame.hpp"
#include "dashboard/session_page.hpp"
#include "dashboard/sessions_page.hpp"
#include "dashboard/tpu_session_page.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "report/charts.hpp"

namespace paratune {

namespace {

constexpr const char* html_type = "text/html; charset=utf-8";
constexpr const char* json_type = "application/json";
constexpr const char* svg_type = "image/svg+xml";
constexpr const char* text_type = "text/plain; charset=utf-8";

dashboard_answer text_answer(int status, std::string text) {
  return {status, text_type, std::move(text) + "\n", data_policy()};
}

dashboard_answer json_answer(const nlohmann::json& j) {
  // A string from the pool that is not UTF-8 (a log line) is replaced, not
  // a reason to fail the whole document.
  return {200, json_type, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
          data_policy()};
}

dashboard_answer page_answer(const std::function<std::string(const std::string&)>& render) {
  const auto nonce = new_nonce();
  return {200, html_type, render(nonce), page_policy(nonce)};
}

// Views of the sessions `ids` names that are tuning sessions, GPU or TPU.
caf::expected<std::vector<any_session_view>> views_of(session_reader& reader,
                                                      const std::vector<std::string>& ids) {
  std::vector<any_session_view> views;
  for (const auto& id : ids) {
    auto history = reader.history(id);
    if (!history)
      return history.error();
    try {
      if (auto v = view_of(id, *history))
        views.push_back(std::move(*v));
    } catch (const wire::decode_error& e) {
      return caf::make_error(ec::decode_failure, "session " + id + ": " + e.what());
    }
  }
  return views;
}

int64_t opened_at(const any_session_view& v) {
  return std::visit([](const auto& x) { return x.opened_at_ms; }, v);
}

const std::string& id_of(const any_session_view& v) {
  if (const auto* gpu = std::get_if<session_view>(&v))
    return gpu->summary.session;
  return std::get<tpu_session_view>(v).session;
}

// What a GPU-only route answers for a TPU session.
dashboard_answer no_gpu_part(const std::string& id, const char* what) {
  return text_answer(404, "session " + id + " is a TPU session: it has no " + what);
}

} // namespace

dashboard_content::dashboard_content(std::shared_ptr<const message_pool> pool,
                                     std::size_t max_sessions)
  : reader_(std::move(pool)), max_sessions_(max_sessions) {}

caf::expected<dashboard_content::listed_sessions> dashboard_content::newest_sessions() {
  auto ids = reader_.sessions();
  if (!ids)
    return ids.error();
  auto views = views_of(reader_, *ids);
  if (!views)
    return views.error();
  std::sort(views->begin(), views->end(), [](const any_session_view& a, const any_session_view& b) {
    if (opened_at(a) != opened_at(b))
      return opened_at(a) > opened_at(b);
    return id_of(a) > id_of(b);
  });
  if (views->size() > max_sessions_)
    views->resize(max_sessions_);
  listed_sessions out;
  for (auto& v : *views) {
    if (auto* gpu = std::get_if<session_view>(&v))
      out.gpu.push_back(std::move(*gpu));
    else
      out.tpu.push_back(std::get<tpu_session_view>(std::move(v)));
  }
  return out;
}

std::variant<any_session_view, dashboard_answer> dashboard_content::session(const std::string& id) {
  if (!is_plain_name(id, max_session_id))
    return text_answer(400, "bad session id: expected 1 to " + std::to_string(max_session_id)
                              + " letters, digits, '.', '_' or '-'");
  auto views = views_of(reader_, {id});
  if (!views)
    return text_answer(500, "cannot read session " + id + " from the pool: "
                              + describe(views.error()));
  if (views->empty())
    return text_answer(404, "no tuning session " + id + " in the pool");
  return std::move(views->front());
}

dashboard_answer dashboard_content::sessions_page() {
  auto views = newest_sessions();
  if (!views)
    return text_answer(500, "cannot read the pool: " + describe(views.error()));
  return page_answer([&](const std::string& nonce) {
    return paratune::sessions_page(views->gpu, views->tpu, nonce);
  });
}

dashboard_answer dashboard_content::sessions_json() {
  auto views = newest_sessions();
  if (!views)
    return text_answer(500, "cannot read the pool: " + describe(views.error()));
  return json_answer(paratune::sessions_json(views->gpu, views->tpu));
}

dashboard_answer dashboard_content::session_page(const std::string& id) {
  auto found = session(id);
  if (const auto* refusal = std::get_if<dashboard_answer>(&found))
    return *refusal;
  const auto& any = std::get<any_session_view>(found);
  if (const auto* tpu = std::get_if<tpu_session_view>(&any))
    return page_answer(
      [&](const std::string& nonce) { return paratune::tpu_session_page(*tpu, nonce); });
  const auto* v = &std::get<session_view>(any);
  const auto panels = session_panels(*v);
  return page_answer(
    [&](const std::string& nonce) { return paratune::session_page(*v, panels, nonce); });
}

dashboard_answer dashboard_content::session_json(const std::string& id) {
  auto found = session(id);
  if (const auto* refusal = std::get_if<dashboard_answer>(&found))
    return *refusal;
  const auto& any = std::get<any_session_view>(found);
  if (const auto* tpu = std::get_if<tpu_session_view>(&any))
    return json_answer(paratune::tpu_session_json(*tpu));
  return json_answer(paratune::session_json(std::get<session_view>(any)));
}

dashboard_answer dashboard_content::mfu_chart(const std::string& id) {
  auto found = session(id);
  if (const auto* refusal = std::get_if<dashboard_answer>(&found))
    return *refusal;
  const auto* v = std::get_if<session_view>(&std::get<any_session_view>(found));
  if (!v)
    return no_gpu_part(id, "MFU chart");
  return {200, svg_type, mfu_chart_svg(v->summary), data_policy()};
}

dashboard_answer dashboard_content::panels(const std::string& id) {
  auto found = session(id);
  if (const auto* refusal = std::get_if<dashboard_answer>(&found))
    return *refusal;
  const auto* v = std::get_if<session_view>(&std::get<any_session_view>(found));
  if (!v)
    return no_gpu_part(id, "panels");
  // A fragment the page's script parses and places; never a page of its own.
  return {200, html_type, session_panels(*v), data_policy()};
}

} // namespace paratune
