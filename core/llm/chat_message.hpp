#pragma once

#include <string>
#include <vector>

namespace paratune {

/// One message of a chat-completions conversation.
struct chat_message {
  std::string role;     ///< "system", "user", "assistant"
  std::string content;
};

/// What one call to a language model brought back, as the decision loop
/// sees it (adapters/llm does the HTTP).
struct chat_outcome {
  bool ok = false;
  std::string content;         ///< the answer's text, when ok
  std::string error;           ///< why there is none, when not ok (never the key)
  double latency_ms = 0;
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int attempts = 0;
};

} // namespace paratune
