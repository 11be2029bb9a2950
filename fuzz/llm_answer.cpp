// Fuzzes the strict reading of a language model's answers
// (core/llm/model_answer.hpp): a proposed configuration (llm mode), a
// ranking of offered candidates (hybrid mode), a failure reading and a
// dialogue reply, from the same bytes. A
// model's text is untrusted; every answer must come back as a value or a
// named refusal, never as an exception or a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/llm/model_answer.hpp"

namespace {

const paratune::tuning_context& context() {
  static const paratune::tuning_context ctx = [] {
    paratune::tuning_context c;
    c.world_size = 8;
    c.initial = paratune::parse_config("tp=8,pp=1,mbs=1,gbs=512,seq=8192,recompute=full");
    c.search = {{"tp", {"1", "2", "4", "8"}}, {"pp", {"1", "2", "4"}},
                {"mbs", {"1", "2", "4"}}, {"recompute", {"none", "selective", "full"}},
                {"sp", {"false", "true"}}};
    return c;
  }();
  return ctx;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string answer(reinterpret_cast<const char*>(data), size);
  (void)paratune::read_proposed_config(answer, context(), context().initial);
  (void)paratune::read_proposed_ranking(answer, 5);
  (void)paratune::read_failure_reading(answer);
  (void)paratune::read_dialogue_reply(answer, 7);
  return 0;
}
