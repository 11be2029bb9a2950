#include "core/slurm_word.hpp"

#include <cctype>

namespace paratune {

namespace {

bool made_of(std::string_view value, std::string_view extra) {
  if (value.empty() || value.size() > 256)
    return false;
  for (unsigned char c : value)
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.'
        && extra.find(char(c)) == std::string_view::npos)
      return false;
  return true;
}

} // namespace

const char* to_string(slurm_word w) {
  switch (w) {
    case slurm_word::account: return "account";
    case slurm_word::qos: return "qos";
    case slurm_word::constraint: return "constraint";
    case slurm_word::gres: return "gres";
  }
  return "?";
}

std::optional<std::string> slurm_word_error(slurm_word w, std::string_view value) {
  const std::string quoted = "'" + std::string(value) + "'";
  switch (w) {
    case slurm_word::account:
    case slurm_word::qos:
      if (!made_of(value, ""))
        return quoted + " is not a Slurm " + to_string(w)
               + " name (1 to 256 letters, digits, '_', '-', '.')";
      return std::nullopt;
    case slurm_word::constraint:
      if (!made_of(value, "&|,[]*:()"))
        return quoted + " is not a node feature expression (feature names joined by & | , "
                        "with [ ] * : ( ), e.g. h100&ib)";
      return std::nullopt;
    case slurm_word::gres:
      if (!made_of(value, ":,"))
        return quoted + " is not a generic resource list (name[:type][:count], commas "
                        "between, e.g. gpu:8 or gpu:h100:8)";
      return std::nullopt;
  }
  return std::nullopt;
}

} // namespace paratune
