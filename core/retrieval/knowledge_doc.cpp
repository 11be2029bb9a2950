#include "core/retrieval/knowledge_doc.hpp"

#include "core/input_error.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

// What trim() strips here: a document's lines may end in \r\n, and its body
// in blank lines.
constexpr std::string_view blanks = " \t\r\n";

std::vector<std::string> parse_tags(std::string value) {
  std::vector<std::string> tags;
  for (char& c : value)
    if (c == '[' || c == ']')
      c = ',';
  for (const auto& piece : split(value, ',')) {
    auto tag = trim(piece, blanks);
    if (!tag.empty())
      tags.push_back(tag);
  }
  return tags;
}

} // namespace

knowledge_doc parse_knowledge_doc(std::string_view text, const std::string& where) {
  if (text.substr(0, 4) != "---\n")
    throw input_error(where + ": a knowledge document starts with '---' front matter");
  const auto end = text.find("\n---", 3);
  if (end == std::string_view::npos)
    throw input_error(where + ": the front matter is not closed by '---'");
  knowledge_doc d;
  std::string_view header = text.substr(4, end - 4);
  while (!header.empty()) {
    auto nl = header.find('\n');
    auto line = header.substr(0, nl);
    header = nl == std::string_view::npos ? std::string_view{} : header.substr(nl + 1);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
      continue;
    const auto key = trim(line.substr(0, colon), blanks);
    const auto value = trim(line.substr(colon + 1), blanks);
    if (key == "id")
      d.id = value;
    else if (key == "title")
      d.title = value;
    else if (key == "tags")
      d.tags = parse_tags(value);
  }
  if (d.id.empty() || d.title.empty())
    throw input_error(where + ": the front matter needs 'id' and 'title'");
  auto body_start = text.find('\n', end + 4);
  d.body = body_start == std::string_view::npos ? "" : trim(text.substr(body_start + 1), blanks);
  return d;
}

std::string indexed_text(const knowledge_doc& d) {
  std::string t = d.title + "\n" + d.title + "\n";
  for (const auto& tag : d.tags)
    t += tag + " ";
  return t + "\n" + d.body;
}

std::string excerpt_of(const std::string& body, std::size_t max_chars) {
  std::string flat;
  for (char c : body)
    flat.push_back(c == '\n' ? ' ' : c);
  std::size_t cut = 0;
  for (std::size_t i = 0; i < flat.size() && i < max_chars; ++i)
    if (flat[i] == '.' && (i + 1 == flat.size() || flat[i + 1] == ' '))
      cut = i + 1;
  if (cut == 0)
    cut = std::min(flat.size(), max_chars);
  return flat.substr(0, cut);
}

} // namespace paratune
