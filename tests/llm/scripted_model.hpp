#pragma once

// What the language-model tests share: a model that answers from a script
// in-process (the HTTP path has its own tests against a real server), the
// prompt templates as the product ships them, and a GPT-3 7B session.

#include <deque>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/llm/guarded_ask.hpp"
#include "core/tuning/tuning_context.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "validation/reference_specs.hpp"

namespace paratune::test {

inline tuning_context gpt3_7b_on_16_a100() {
  tuning_context ctx;
  ctx.model = reference::gpt(32, 4096, 32, 50257);
  ctx.cluster = reference::dgx_a100();
  ctx.world_size = 16;
  ctx.prec = precision::fp16;
  ctx.initial = parse_config("tp=1,pp=1,mbs=2,gbs=1024,seq=4096,recompute=full,dist_opt=true");
  ctx.search = {{"mbs", {"1", "2", "4"}}, {"tp", {"1", "2", "4", "8"}},
                {"pp", {"1", "2", "4"}}, {"recompute", {"none", "selective", "full"}}};
  return ctx;
}

inline std::string prompt_file(const char* name) {
  std::ifstream in(test::source_dir() + "/configs/prompts/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A model that answers from a script, and remembers what it was asked.
struct scripted_model {
  std::deque<chat_outcome> answers;
  std::vector<std::vector<chat_message>> asked;

  chat_fn fn() {
    return [this](const std::vector<chat_message>& m, const nlohmann::json&) {
      asked.push_back(m);
      auto a = answers.front();
      if (answers.size() > 1)
        answers.pop_front();
      return a;
    };
  }
};

inline chat_outcome says(const std::string& content) {
  chat_outcome o;
  o.ok = true;
  o.content = content;
  o.latency_ms = 40;
  o.prompt_tokens = 900;
  o.completion_tokens = 30;
  o.attempts = 1;
  return o;
}

} // namespace paratune::test
