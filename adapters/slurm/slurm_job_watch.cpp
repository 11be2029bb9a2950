#include "adapters/slurm/slurm_job_watch.hpp"

#include <fstream>

namespace paratune {

namespace {

/// Slurm names the output file by the job id: "%j" in the path.
std::string with_job_id(std::string path, slurm_job_id id) {
  for (auto at = path.find("%j"); at != std::string::npos; at = path.find("%j", at))
    path.replace(at, 2, std::to_string(id));
  return path;
}

/// A finished job's status as a child process's: the script's exit code,
/// or 128 + the signal that killed it.
int exit_status_of(const slurm_job_status& s) {
  if (s.signal > 0)
    return 128 + s.signal;
  if (s.exit_code)
    return *s.exit_code;
  return s.state == slurm_state::completed ? 0 : 1;
}

constexpr int scheduler_error = 125;

} // namespace

slurm_job_watch::slurm_job_watch(std::unique_ptr<slurm_client> client, slurm_job_request request,
                                 line_handler on_line, exit_handler on_exit,
                                 std::chrono::milliseconds poll, submitted_handler on_submitted,
                                 running_handler on_running)
  : client_(std::move(client)), request_(std::move(request)), on_line_(std::move(on_line)),
    on_exit_(std::move(on_exit)), poll_(poll), on_submitted_(std::move(on_submitted)),
    on_running_(std::move(on_running)) {
  thread_ = std::thread([this] { run(); });
}

slurm_job_watch::slurm_job_watch(std::unique_ptr<slurm_client> client, slurm_job_id attach_to,
                                 std::string output_file, line_handler on_line,
                                 exit_handler on_exit, std::chrono::milliseconds poll,
                                 running_handler on_running)
  : client_(std::move(client)), on_line_(std::move(on_line)), on_exit_(std::move(on_exit)),
    poll_(poll), on_running_(std::move(on_running)), attach_to_(attach_to) {
  output_file_ = std::move(output_file);
  thread_ = std::thread([this] { run(); });
}

std::unique_ptr<slurm_job_watch> slurm_job_watch::attach(std::unique_ptr<slurm_client> client,
                                                         slurm_job_id id, std::string output_file,
                                                         line_handler on_line, exit_handler on_exit,
                                                         std::chrono::milliseconds poll,
                                                         running_handler on_running) {
  return std::unique_ptr<slurm_job_watch>(new slurm_job_watch(std::move(client), id,
                                                              std::move(output_file),
                                                              std::move(on_line),
                                                              std::move(on_exit), poll,
                                                              std::move(on_running)));
}

slurm_job_watch::~slurm_job_watch() {
  if (!detached_)
    cancel_ = true;
  if (thread_.joinable())
    thread_.join();
}

void slurm_job_watch::terminate(int) { cancel_ = true; }

void slurm_job_watch::detach() { detached_ = true; }

void slurm_job_watch::follow_output() {
  std::ifstream in(output_file_, std::ios::binary);
  if (!in)
    return; // not written yet: the job is pending or just started
  output_seen_ = true;
  in.seekg(read_offset_);
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  read_offset_ += static_cast<long long>(chunk.size());
  partial_line_ += chunk;
  size_t start = 0;
  for (auto nl = partial_line_.find('\n'); nl != std::string::npos;
       nl = partial_line_.find('\n', start)) {
    on_line_(partial_line_.substr(start, nl - start));
    start = nl + 1;
  }
  partial_line_.erase(0, start);
}

void slurm_job_watch::run() {
  if (attach_to_ > 0)
    return watch(attach_to_, std::chrono::steady_clock::now());
  const auto submitted = client_->submit(request_);
  if (!submitted) {
    on_line_("slurm: the job was not submitted: " + submitted.error().message);
    on_exit_(scheduler_error);
    finished_ = true; // after the exit is reported, as child_process does
    return;
  }
  const auto id = submitted.value();
  output_file_ = with_job_id(request_.output_path, id);
  if (on_submitted_)
    on_submitted_(id, output_file_);
  watch(id, std::chrono::steady_clock::now());
}

void slurm_job_watch::watch(slurm_job_id id, std::chrono::steady_clock::time_point submitted_at) {
  bool started = false;
  bool placed = false;
  bool cancel_sent = false;
  int status = scheduler_error;
  for (;;) {
    if (detached_)
      return; // left running; whoever attaches next reports its end
    if (cancel_ && !cancel_sent) {
      client_->cancel(id); // the state turns cancelled; keep polling for it
      cancel_sent = true;
    }
    const auto s = client_->state(id);
    follow_output();
    if (!s) {
      on_line_("slurm: job " + std::to_string(id) + " lost: " + s.error().message);
      break;
    }
    if (!started && s.value().state != slurm_state::pending) {
      started = true;
      queued_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - submitted_at).count();
    }
    if (!placed && started && !s.value().nodes.empty()) {
      placed = true;
      if (on_running_)
        on_running_(s.value().nodes);
    }
    if (is_final(s.value().state)) {
      follow_output(); // the last lines may land with the final state
      status = exit_status_of(s.value());
      if (!output_seen_ && s.value().state != slurm_state::cancelled) {
        // slurmstepd could not open the file (it logs why only on the
        // node; Slurm says "JobLaunchFailure", the status a fake signal
        // 53), or wrote it where this machine does not see it.
        on_line_("slurm: job " + std::to_string(id) + " ended " + s.value().raw_state + " ("
                 + s.value().reason + ") and its output file " + output_file_
                 + " never appeared here: the job's user could not create it there, or the "
                   "directory is not on a file system this machine shares");
        status = scheduler_error;
      } else if (s.value().state != slurm_state::completed
                 && s.value().state != slurm_state::failed
                 && s.value().state != slurm_state::cancelled)
        on_line_("slurm: job " + std::to_string(id) + " ended " + s.value().raw_state
                 + " (" + s.value().reason + ")");
      break;
    }
    std::this_thread::sleep_for(poll_);
  }
  if (!partial_line_.empty())
    on_line_(partial_line_);
  on_exit_(status);
  finished_ = true;
}

} // namespace paratune
