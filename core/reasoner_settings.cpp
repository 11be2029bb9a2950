#include "core/reasoner_settings.hpp"

#include "core/enum_words.hpp"

namespace paratune {

const char* to_string(reasoner_mode m) {
  switch (m) {
    case reasoner_mode::builtin: return "builtin";
    case reasoner_mode::llm: return "llm";
    case reasoner_mode::hybrid: return "hybrid";
  }
  return "builtin";
}

bool parse_reasoner_mode(const std::string& text, reasoner_mode& out) {
  return parse_word_of(text, {reasoner_mode::builtin, reasoner_mode::llm, reasoner_mode::hybrid},
                       out);
}

std::optional<std::string> check_reasoner_settings(const reasoner_settings& s) {
  if (s.mode == reasoner_mode::builtin)
    return std::nullopt;
  const auto& url = s.base_url;
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    return "reasoner base_url must start with http:// or https://, not '" + url + "'";
  const auto authority = url.substr(url.find("//") + 2);
  if (authority.substr(0, authority.find('/')).find('@') != std::string::npos)
    return "reasoner base_url must not carry credentials: name the key's environment variable "
           "in api_key_env";
  if (s.model.empty())
    return "reasoner model is empty";
  if (!(s.timeout_s > 0) || s.timeout_s > 3600)
    return "reasoner timeout_s must be above 0 and at most 3600";
  if (s.max_retries < 0 || s.max_retries > 10)
    return "reasoner max_retries must be 0 to 10";
  return std::nullopt;
}

} // namespace paratune
