#include "dashboard/session_reader.hpp"

#include <algorithm>
#include <string_view>

#include "messages/codec.hpp"
#include "storage/message_pool.hpp"

namespace paratune {

namespace {

bool shown_on_a_page(const wire::envelope& e) {
  static constexpr std::string_view shown[] = {
    wire::type_name<wire::session_opened>(),  wire::type_name<wire::proposal>(),
    wire::type_name<wire::trial_started>(),   wire::type_name<wire::trial_result>(),
    wire::type_name<wire::failure_diagnosis>(), wire::type_name<wire::session_status>(),
    wire::type_name<wire::trial_interrupted>(), wire::type_name<wire::tpu_session_opened>(),
    wire::type_name<wire::tpu_trial_row>(),     wire::type_name<wire::tpu_session_end>()};
  if (std::find(std::begin(shown), std::end(shown), e.type) != std::end(shown))
    return true;
  // The live line's: a trial's TFLOP/s per GPU from its log, not the
  // per-GPU exporter series.
  if (e.type != wire::type_name<wire::metric_series>())
    return false;
  try {
    const auto m = wire::body_of<wire::metric_series>(e);
    return m.metric == trial_metric::tflops_per_gpu && m.gpu < 0;
  } catch (const wire::decode_error&) {
    return true;  // kept: reading the session's view reports it (a 500)
  }
}

} // namespace

session_reader::session_reader(std::shared_ptr<const message_pool> pool)
  : pool_(std::move(pool)) {}

caf::expected<std::vector<std::string>> session_reader::sessions() const {
  return pool_->sessions();
}

caf::expected<std::vector<wire::envelope>> session_reader::history(const std::string& session) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto& entry = sessions_[session];
  auto fresh = pool_->session_history(session, entry.last_seq);
  if (!fresh)
    return fresh.error();
  for (auto& e : *fresh) {
    entry.last_seq = std::max(entry.last_seq, e.seq);
    if (shown_on_a_page(e))
      entry.records.push_back(std::move(e));
  }
  auto out = entry.records;
  if (entry.last_seq == 0)
    sessions_.erase(session); // an id the pool lacks leaves nothing behind
  return out;
}

} // namespace paratune
