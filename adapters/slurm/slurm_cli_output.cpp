#include "adapters/slurm/slurm_cli_output.hpp"

#include "core/clipped_lines.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <string>

namespace paratune {

namespace {

slurm_error malformed(std::string_view what, std::string_view text) {
  std::string excerpt;
  for (char c : text.substr(0, 160))
    excerpt.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  if (text.size() > 160)
    excerpt += "...";
  return {slurm_failure::malformed, std::string(what) + ": '" + excerpt + "'"};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// Digits only, 1 ..= UINT32_MAX: no sign, no spaces, no overflow.
std::optional<std::uint32_t> parse_u32(std::string_view s) {
  if (s.empty() || s.size() > 10)
    return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return std::nullopt;
    v = v * 10 + std::uint64_t(c - '0');
  }
  if (v > 0xffffffffu)
    return std::nullopt;
  return std::uint32_t(v);
}

// The length of a key at the start of `word` including its '=', or 0.
std::size_t key_length(std::string_view word) {
  if (word.empty() || !std::isupper(static_cast<unsigned char>(word[0])))
    return 0;
  for (std::size_t i = 1; i < word.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(word[i]);
    if (c == '=')
      return i + 1;
    if (!(std::isalnum(c) || c == '_' || c == ':' || c == '/'))
      return 0;
  }
  return 0;
}

bool contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

} // namespace

slurm_result<slurm_job_id> parse_sbatch_parsable(std::string_view out) {
  std::string_view s = trim(out);
  std::string_view id = s.substr(0, s.find(';'));
  auto v = parse_u32(id);
  if (!v || *v == 0)
    return malformed("sbatch --parsable printed no job id", out);
  return slurm_job_id{*v};
}

bool ambiguous_in_scontrol_line(std::string_view value) {
  for (std::size_t i = 0; i < value.size(); ++i)
    if (value[i] == ' ' && key_length(value.substr(i + 1)) > 0)
      return true;
  return false;
}

slurm_result<slurm_job_status> parse_scontrol_job(std::string_view line) {
  std::string_view text = trim(line);
  if (text.find('\n') != std::string_view::npos)
    return malformed("scontrol show job -o printed more than one line", line);
  // The keys this reader uses; each must appear at most once.
  static constexpr std::array<std::string_view, 7> used{
      "JobId", "JobName", "JobState", "Reason", "ExitCode", "NodeList", "Partition"};
  std::map<std::string, std::string, std::less<>> fields;
  std::string* current = nullptr;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    if (std::size_t k = key_length(word); k > 0) {
      std::string key(word.substr(0, k - 1));
      bool is_used = false;
      for (auto u : used)
        is_used = is_used || u == key;
      auto [it, fresh] = fields.try_emplace(key);
      if (!fresh && is_used)
        return malformed("scontrol show job names " + key + " twice (a value imitating a key?)",
                         line);
      it->second = std::string(word.substr(k));
      current = &it->second;
    } else if (current) {
      *current += ' ';
      *current += word;
    } else {
      return malformed("scontrol show job line does not start with Key=Value", line);
    }
    pos = end + 1;
  }
  auto field = [&](std::string_view key) -> const std::string* {
    auto it = fields.find(key);
    return it == fields.end() ? nullptr : &it->second;
  };
  const std::string* id = field("JobId");
  const std::string* state = field("JobState");
  if (!id || !state)
    return malformed("scontrol show job line lacks JobId or JobState", line);
  auto parsed_id = parse_u32(*id);
  if (!parsed_id || *parsed_id == 0)
    return malformed("scontrol show job has a bad JobId", *id);

  slurm_job_status s;
  s.id = *parsed_id;
  s.raw_state = *state;
  s.state = parse_slurm_state(*state);
  if (const std::string* r = field("Reason"))
    s.reason = *r;
  if (const std::string* n = field("NodeList"); n && *n != "(null)")
    s.nodes = *n;
  if (const std::string* p = field("Partition"))
    s.partition = *p;
  if (const std::string* n = field("JobName"))
    s.name = *n;
  // ExitCode=STATUS:SIGNAL of the batch script.
  if (const std::string* e = field("ExitCode")) {
    auto colon = e->find(':');
    auto code = parse_u32(std::string_view(*e).substr(0, colon));
    auto sig = colon == std::string::npos ? std::optional<std::uint32_t>(0)
                                          : parse_u32(std::string_view(*e).substr(colon + 1));
    if (!code || !sig || *code > 255 || *sig > 255)
      return malformed("scontrol show job has a bad ExitCode", *e);
    s.signal = int(*sig);
    if (is_final(s.state) && s.signal == 0 && s.state != slurm_state::cancelled)
      s.exit_code = int(*code);
  }
  return s;
}

slurm_result<slurm_ping> parse_scontrol_ping(std::string_view out) {
  // "Slurmctld(primary) at vm is UP"; with a backup controller, one line each.
  std::string_view first = trim(out.substr(0, out.find('\n')));
  auto at = first.find(" at ");
  auto is = first.rfind(" is ");
  if (first.rfind("Slurmctld(", 0) != 0 || at == std::string_view::npos
      || is == std::string_view::npos || is < at)
    return malformed("scontrol ping printed something unexpected", out);
  slurm_ping p;
  p.controller = std::string(first.substr(at + 4, is - at - 4));
  std::string_view word = first.substr(is + 4);
  if (word != "UP" && word != "DOWN")
    return malformed("scontrol ping printed something unexpected", out);
  p.up = word == "UP";
  if (!p.up)
    return slurm_error{slurm_failure::unreachable, "slurmctld at " + p.controller + " is DOWN"};
  return p;
}

slurm_error classify_cli_failure(std::string_view command, int exit_code,
                                 std::string_view err) {
  std::string_view text = trim(err);
  std::string where = std::string(command) + " (exit " + std::to_string(exit_code) + "): ";
  // Whole lines, or the first up to a word, and a note of what was cut: a
  // cut mid-word ("Unknown ho") loses the word the user needs.
  const std::string excerpt = clipped_lines(text, 400);
  // The pool is down, or this host cannot find its controller.
  for (std::string_view sign :
       {"Unable to contact slurm controller", "Unable to process configuration file",
        "Zero Bytes were transmitted", "Socket timed out", "Communication connection failure",
        "cannot stat file", "Connection refused",
        // No slurm.conf and no DNS SRV record naming a controller.
        "Could not establish a configuration source"})
    if (contains(text, sign))
      return {slurm_failure::unreachable, where + excerpt};
  if (contains(text, "Invalid job id specified"))
    return {slurm_failure::not_found, where + excerpt};
  if (contains(text, "Invalid user") || contains(text, "Access/permission denied")
      || contains(text, "Authentication failure"))
    return {slurm_failure::unauthorized, where + excerpt};
  // sbatch: "error: Batch job submission failed: Invalid partition name specified"
  constexpr std::string_view failed = "Batch job submission failed: ";
  if (auto f = text.find(failed); f != std::string_view::npos) {
    std::string_view reason = text.substr(f + failed.size());
    reason = trim(reason.substr(0, reason.find('\n')));
    return {slurm_failure::refused, std::string(reason)};
  }
  return {slurm_failure::command_failed, where + (excerpt.empty() ? "no message" : excerpt)};
}

} // namespace paratune
