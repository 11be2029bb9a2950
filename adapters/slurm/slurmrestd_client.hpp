#pragma once

#include "adapters/slurm/slurm_client.hpp"

#include <chrono>
#include <cstddef>
#include <string>

namespace paratune {

/// Where slurmrestd listens and who paratune is to it.
struct slurmrestd_options {
  /// "unix:/path/to/socket" (rest_auth/local: slurmrestd accepts a caller
  /// that runs as its own user or as root, and acts as its own user), or
  /// "http://host:port" (rest_auth/jwt: user_name and token go in the
  /// X-SLURM-USER-NAME and X-SLURM-USER-TOKEN headers).
  std::string address;
  std::string user_name;
  std::string token;
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds total_timeout{30000};
  std::size_t max_body_bytes = std::size_t{16} << 20;
};

/// A JWT from a file (as `scontrol token` wrote it, with or without the
/// "SLURM_JWT=" prefix) or from an environment variable. Tokens are secrets:
/// the error never quotes one.
slurm_result<std::string> slurm_token_from_file(const std::string& path);
slurm_result<std::string> slurm_token_from_env(const std::string& variable);

/// A slurm_client over slurmrestd's OpenAPI v0.0.38 with libcurl: POST
/// /slurm/v0.0.38/job/submit, GET and DELETE /slurm/v0.0.38/job/{id}, GET
/// /slurm/v0.0.38/ping. Each call is one blocking request. A socket or port
/// where nothing listens is `unreachable`, as is a slurmrestd whose
/// slurmctld does not answer.
///
/// The job's environment is exactly slurm_job_request::environment (plus
/// Slurm's SLURM_* variables): slurmrestd has no submitter environment.
class slurmrestd_client final : public slurm_client {
 public:
  explicit slurmrestd_client(slurmrestd_options options);

  slurm_result<slurm_job_id> submit(const slurm_job_request& job) override;
  slurm_result<slurm_job_status> state(slurm_job_id id) override;
  slurm_result<> cancel(slurm_job_id id) override;
  slurm_result<slurm_ping> ping() override;

 private:
  struct reply {
    long status = 0;
    std::string body;
  };
  slurm_result<reply> request(const char* method, const std::string& route,
                              const std::string& body) const;

  slurmrestd_options options_;
  std::string base_url_;     ///< scheme://host[:port], no route
  std::string unix_socket_;  ///< empty for TCP
};

} // namespace paratune
