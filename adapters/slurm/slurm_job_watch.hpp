#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "adapters/process/trial_process.hpp"
#include "adapters/slurm/slurm_client.hpp"

namespace paratune {

/// One trial as a Slurm batch job, seen as a child process is: its output
/// file's lines as they are written, then its exit status. A thread of its
/// own submits the job, polls its state every `poll` and follows the output
/// file from the last byte read, so the caller (the validator) treats a
/// Slurm trial like a local one. Exit statuses: the batch script's own; 128
/// + signal for a job killed by one (cancelled: 143); 125 when Slurm refused
/// or lost the job, or it ended without its output file ever appearing here
/// (the reason is the last line: a scheduler error, not the trial's).
class slurm_job_watch final : public trial_process {
public:
  using line_handler = std::function<void(const std::string& line)>;
  using exit_handler = std::function<void(int status)>;
  /// Called on the watch's thread once Slurm accepted the job: its id and
  /// its output file, what a watcher that restarts needs to attach again.
  using submitted_handler = std::function<void(slurm_job_id id, const std::string& output_file)>;
  /// Called on the watch's thread once, when Slurm first reports the job
  /// running with its node list ("gpu[01-02]", Slurm's compressed form).
  using running_handler = std::function<void(const std::string& nodes)>;

  slurm_job_watch(std::unique_ptr<slurm_client> client, slurm_job_request request,
                  line_handler on_line, exit_handler on_exit,
                  std::chrono::milliseconds poll = std::chrono::milliseconds(500),
                  submitted_handler on_submitted = {}, running_handler on_running = {});
  /// Attaches to a job submitted earlier (by a process that has since
  /// ended): follows its output file from the first byte and reports its
  /// end, as if it had submitted it.
  static std::unique_ptr<slurm_job_watch> attach(std::unique_ptr<slurm_client> client,
                                                 slurm_job_id id, std::string output_file,
                                                 line_handler on_line, exit_handler on_exit,
                                                 std::chrono::milliseconds poll =
                                                   std::chrono::milliseconds(500),
                                                 running_handler on_running = {});
  /// Cancels a job still running, unless detached, and joins the thread.
  ~slurm_job_watch() override;

  /// Stops watching and leaves the job to run: a daemon that stops keeps
  /// its trials on the cluster and attaches to them when it starts again.
  /// No exit is reported.
  void detach() override;

  /// Cancels the job (scancel or REST DELETE); its end arrives as on_exit.
  void terminate(int grace_ms = 2000) override;
  bool finished() const override { return finished_; }
  /// From submission until Slurm first reported the job running (or ended).
  long long queued_ms() const override { return queued_ms_; }

private:
  void run();
  /// Reads what the output file gained since the last call, line by line.
  void follow_output();

  std::unique_ptr<slurm_client> client_;
  slurm_job_request request_;
  line_handler on_line_;
  exit_handler on_exit_;
  std::chrono::milliseconds poll_;
  slurm_job_watch(std::unique_ptr<slurm_client> client, slurm_job_id attach_to,
                  std::string output_file, line_handler on_line, exit_handler on_exit,
                  std::chrono::milliseconds poll, running_handler on_running);
  /// Polls the job's state and follows its output until it ends, is
  /// cancelled, or the watch is detached.
  void watch(slurm_job_id id, std::chrono::steady_clock::time_point submitted_at);

  submitted_handler on_submitted_;
  running_handler on_running_;
  slurm_job_id attach_to_ = 0;     ///< a job submitted before: attach, do not submit
  std::atomic<bool> detached_{false};
  std::atomic<bool> cancel_{false};
  std::atomic<bool> finished_{false};
  std::atomic<long long> queued_ms_{0};
  std::string output_file_;  ///< request's output path with %j filled in
  long long read_offset_ = 0;
  bool output_seen_ = false;  ///< the output file was there at least once
  std::string partial_line_;
  std::thread thread_;
};

} // namespace paratune
