#pragma once

#include "adapters/slurm/slurm_client.hpp"
#include "adapters/slurm/slurm_job.hpp"
#include "adapters/slurm/slurm_result.hpp"

#include <string>
#include <string_view>

namespace paratune {

// The JSON side of slurmrestd's OpenAPI v0.0.38 (Slurm 22.05), apart from
// the transport so that recorded answers can be tested. Answers are
// untrusted: wrong types, missing fields and non-JSON give `malformed`.
//
// How slurmrestd 22.05 reports failures, as recorded in
// tests/fixtures/slurm/: HTTP 401 "Authentication failure" (no or bad
// token); HTTP 500 with {"errors": [{"error": TEXT, "error_number": N}]}
// (the refused partition says "error_code" instead). N = 2017 is an unknown
// job id; N = -1 ("Unspecified error") is what it answers when slurmctld
// does not answer.

/// The body of POST /slurm/v0.0.38/job/submit for `job` (checked before).
std::string slurmrestd_submit_body(const slurm_job_request& job);

/// The answer to POST .../job/submit: {"job_id": N, ...}.
slurm_result<slurm_job_id> parse_slurmrestd_submit(long http_status, std::string_view body);

/// slurmrestd 22.05 answers a job whose fields its option parser refuses
/// (a gres or GPU count the cluster does not configure, say) with only
/// "Failure during parsing" (error 9001, ESLURM_REST_FAIL_PARSING): the
/// reason goes to its own log, which a client cannot read. For such an
/// error, the message says so and names the fields of `job` that are
/// checked against the cluster's configuration; any other error is
/// returned as it is.
slurm_error explain_parse_failure(slurm_error e, const slurm_job_request& job);
/// The answer to GET .../job/{id}: {"jobs": [{"job_id": id, "job_state": ...}]}.
/// exit_code there is the raw wait status (768 for exit 3, 15 for SIGTERM).
slurm_result<slurm_job_status> parse_slurmrestd_job(long http_status, std::string_view body,
                                                    slurm_job_id id);
/// The answer to DELETE .../job/{id}.
slurm_result<> parse_slurmrestd_cancel(long http_status, std::string_view body);
/// The answer to GET .../ping: {"pings": [{"hostname": H, "ping": "UP"}]}.
slurm_result<slurm_ping> parse_slurmrestd_ping(long http_status, std::string_view body);

} // namespace paratune
