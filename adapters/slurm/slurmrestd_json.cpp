#include "adapters/slurm/slurmrestd_json.hpp"

#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace paratune {

namespace {

using json = nlohmann::json;

std::string excerpt(std::string_view body) {
  std::string out;
  for (char c : body.substr(0, 160))
    out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return body.size() > 160 ? out + "..." : out;
}

slurm_error malformed_reply(const std::string& why, std::string_view body) {
  return {slurm_failure::malformed, "slurmrestd: " + why + " (answer: " + excerpt(body) + ")"};
}

// Slurm's error numbers (slurm_errno.h) that mean the controller was not
// reached, and the one for an unknown job.
constexpr long unspecified_error = -1;
constexpr long invalid_job_id = 2017;
bool communication_error(long n) {
  return (n >= 1000 && n < 1100) || (n >= 1800 && n < 1900) || n == unspecified_error;
}

// The answer as JSON, or the error it reports. A non-empty "errors" list
// is an error whatever the HTTP status.
slurm_result<json> answer(long http_status, std::string_view body) {
  if (http_status == 401 || http_status == 403)
    return slurm_error{slurm_failure::unauthorized,
                       "slurmrestd answered HTTP " + std::to_string(http_status) + ": "
                           + excerpt(body)};
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return malformed_reply("HTTP " + std::to_string(http_status) + ", not a JSON object", body);
  if (j.contains("errors")) {
    const json& errors = j["errors"];
    if (!errors.is_array())
      return malformed_reply("\"errors\" is not a list", body);
    if (!errors.empty()) {
      const json& e = errors[0];
      std::string text, description;
      long number = 0;
      if (e.is_object()) {
        if (e.contains("error") && e["error"].is_string())
          text = e["error"].get<std::string>();
        if (e.contains("description") && e["description"].is_string())
          description = e["description"].get<std::string>();
        for (const char* key : {"error_number", "error_code"})
          if (e.contains(key) && e[key].is_number_integer())
            number = e[key].get<long>();
      }
      if (text.empty() && description.empty())
        return malformed_reply("an error without a message", body);
      std::string message = text.empty() ? description : text;
      if (!description.empty() && description != text)
        message += " (" + description + ")";
      if (number == invalid_job_id)
        return slurm_error{slurm_failure::not_found, message};
      if (communication_error(number))
        return slurm_error{slurm_failure::unreachable,
                           "slurmrestd cannot reach slurmctld: " + message};
      return slurm_error{slurm_failure::refused, message};
    }
  }
  if (http_status != 200)
    return slurm_error{slurm_failure::command_failed,
                       "slurmrestd answered HTTP " + std::to_string(http_status) + ": "
                           + excerpt(body)};
  return j;
}

std::string string_field(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

} // namespace

std::string slurmrestd_submit_body(const slurm_job_request& job) {
  json env = json::object();
  for (const auto& [k, v] : job.environment)
    env[k] = v;
  json props = {
      {"name", job.name},
      {"partition", job.partition},
      {"nodes", json::array({job.nodes, job.nodes})},  // [min, max] in v0.0.38
      {"current_working_directory", job.working_directory},
      {"environment", env},
  };
  if (job.gpus_per_node > 0)
    props["gpus_per_node"] = std::to_string(job.gpus_per_node);  // a string in v0.0.38
  if (job.time_limit_minutes > 0)
    props["time_limit"] = job.time_limit_minutes;
  // Each key is sbatch's option by slurmrestd's name for it (v0.0.38's
  // job_params in src/plugins/openapi/v0.0.38/jobs.c, SchedMD/slurm
  // 019b46d6), its value as the option's argument.
  if (job.tasks_per_node > 0)
    props["tasks_per_node"] = job.tasks_per_node;
  for (const auto& [key, value] : {std::pair{"account", &job.account}, std::pair{"qos", &job.qos},
                                   std::pair{"constraints", &job.constraint},
                                   std::pair{"gres", &job.gres}})
    if (!value->empty())
      props[key] = *value;
  if (job.exclusive)
    props["exclusive"] = "exclusive";
  if (!job.output_path.empty()) {
    props["standard_output"] = job.output_path;
    props["standard_error"] = job.output_path;
  }
  // dump() escapes; invalid UTF-8 in a user value is replaced, not thrown.
  return json{{"job", props}, {"script", job.script}}.dump(-1, ' ', false,
                                                           json::error_handler_t::replace);
}

slurm_error explain_parse_failure(slurm_error e, const slurm_job_request& job) {
  if (e.message.rfind("Failure during parsing", 0) != 0)
    return e;
  std::vector<std::string> fields;
  if (job.gpus_per_node > 0)
    fields.push_back("gpus_per_node=" + std::to_string(job.gpus_per_node)
                     + " (GPUs are a gres the nodes must configure)");
  for (const auto& [name, value] : {std::pair{"gres", &job.gres},
                                    std::pair{"constraints", &job.constraint},
                                    std::pair{"account", &job.account},
                                    std::pair{"qos", &job.qos}})
    if (!value->empty())
      fields.push_back(std::string(name) + "=" + *value);
  if (job.tasks_per_node > 0)
    fields.push_back("tasks_per_node=" + std::to_string(job.tasks_per_node));
  std::string joined;
  for (const auto& f : fields)
    joined += (joined.empty() ? "" : ", ") + f;
  e.message += ": slurmrestd refused a field of the job and names it only in its own log "
               "(\"error: ...\" beside \"job parsing failed\")";
  if (!joined.empty())
    e.message += "; the fields this job sets that the cluster must allow: " + joined;
  return e;
}

slurm_result<slurm_job_id> parse_slurmrestd_submit(long http_status, std::string_view body) {
  auto j = answer(http_status, body);
  if (!j)
    return j.error();
  const json& v = j.value();
  if (!v.contains("job_id") || !v["job_id"].is_number_unsigned())
    return malformed_reply("submission answer without a job_id", body);
  auto id = v["job_id"].get<std::uint64_t>();
  if (id == 0 || id > 0xffffffffu)
    return malformed_reply("job_id out of range", body);
  return slurm_job_id(id);
}

slurm_result<slurm_job_status> parse_slurmrestd_job(long http_status, std::string_view body,
                                                    slurm_job_id id) {
  auto j = answer(http_status, body);
  if (!j)
    return j.error();
  const json& v = j.value();
  if (!v.contains("jobs") || !v["jobs"].is_array())
    return malformed_reply("job answer without a \"jobs\" list", body);
  for (const json& job : v["jobs"]) {
    if (!job.is_object() || !job.contains("job_id") || !job["job_id"].is_number_unsigned())
      return malformed_reply("a job without a job_id", body);
    if (job["job_id"].get<std::uint64_t>() != id)
      continue;
    if (!job.contains("job_state") || !job["job_state"].is_string())
      return malformed_reply("job " + std::to_string(id) + " without a job_state", body);
    slurm_job_status s;
    s.id = id;
    s.raw_state = job["job_state"].get<std::string>();
    s.state = parse_slurm_state(s.raw_state);
    s.reason = string_field(job, "state_reason");
    s.nodes = string_field(job, "nodes");
    s.partition = string_field(job, "partition");
    s.name = string_field(job, "name");
    if (job.contains("exit_code") && !job["exit_code"].is_null()) {
      if (!job["exit_code"].is_number_unsigned())
        return malformed_reply("job " + std::to_string(id) + " has a bad exit_code", body);
      auto raw = job["exit_code"].get<std::uint64_t>();
      if (raw > 0xffff)
        return malformed_reply("job " + std::to_string(id) + " has a bad exit_code", body);
      // A wait status: low 7 bits the signal, the next byte the exit code.
      s.signal = int(raw & 0x7f);
      if (is_final(s.state) && s.signal == 0 && s.state != slurm_state::cancelled)
        s.exit_code = int((raw >> 8) & 0xff);
    }
    return s;
  }
  return slurm_error{slurm_failure::not_found,
                     "slurmrestd knows no job " + std::to_string(id)};
}

slurm_result<> parse_slurmrestd_cancel(long http_status, std::string_view body) {
  auto j = answer(http_status, body);
  if (!j) {
    // It ended by itself first: nothing left to cancel.
    if (j.error().kind == slurm_failure::refused
        && j.error().message.find("already completing or completed") != std::string::npos)
      return std::monostate{};
    return j.error();
  }
  return std::monostate{};
}

slurm_result<slurm_ping> parse_slurmrestd_ping(long http_status, std::string_view body) {
  auto j = answer(http_status, body);
  if (!j)
    return j.error();
  const json& v = j.value();
  if (!v.contains("pings") || !v["pings"].is_array() || v["pings"].empty()
      || !v["pings"][0].is_object())
    return malformed_reply("ping answer without \"pings\"", body);
  const json& p = v["pings"][0];
  slurm_ping out;
  out.controller = string_field(p, "hostname");
  std::string word = string_field(p, "ping");
  if (word != "UP" && word != "DOWN")
    return malformed_reply("ping answer without UP or DOWN", body);
  out.up = word == "UP";
  if (!out.up)
    return slurm_error{slurm_failure::unreachable, "slurmctld at " + out.controller + " is DOWN"};
  return out;
}

} // namespace paratune
