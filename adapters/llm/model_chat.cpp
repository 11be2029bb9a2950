#include "adapters/llm/model_chat.hpp"

#include <memory>

#include "adapters/llm/chat_client.hpp"

namespace paratune {

chat_fn model_chat(const reasoner_settings& settings) {
  auto client = std::make_shared<const chat_client>(settings);
  return [client](const std::vector<chat_message>& messages, const nlohmann::json& schema) {
    const auto r = client->complete(messages, &schema);
    chat_outcome o;
    o.ok = r.ok();
    if (r.ok()) {
      o.content = r.value().content;
      o.latency_ms = r.value().latency_ms;
      o.prompt_tokens = r.value().prompt_tokens;
      o.completion_tokens = r.value().completion_tokens;
      o.attempts = r.value().attempts;
    } else {
      o.error = std::string(to_string(r.error().kind)) + ": " + r.error().message;
      o.attempts = r.error().attempts;
    }
    return o;
  };
}

} // namespace paratune
