#include "core/llm/prompt_template.hpp"

#include "core/input_error.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

constexpr std::string_view user_marker = "--- user ---";

void fill(std::string& text, const std::string& name, const std::string& value) {
  const std::string placeholder = "{{" + name + "}}";
  for (size_t at = 0; (at = text.find(placeholder, at)) != std::string::npos; at += value.size())
    text.replace(at, placeholder.size(), value);
}

} // namespace

std::vector<chat_message> render_prompt(const std::string& template_text,
                                        const std::map<std::string, std::string>& values) {
  const auto split_at = template_text.find(user_marker);
  if (split_at == std::string::npos)
    throw input_error("prompt template: no \"--- user ---\" line between the system and the "
                      "user part");
  std::string system = trim(template_text.substr(0, split_at), " \t\r\n");
  std::string user = trim(template_text.substr(split_at + user_marker.size()), " \t\r\n");
  for (auto* part : {&system, &user})
    for (const auto& [name, value] : values)
      fill(*part, name, value);
  return {{"system", system}, {"user", user}};
}

} // namespace paratune
