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
/// or lost the job (the reason is the last line: a scheduler error, not the
/// trial's).
class slurm_job_watch final : public trial_process {
public:
  using line_handler = std::function<void(const std::string& line)>;
  using exit_handler = std::function<void(int status)>;

  slurm_job_watch(std::unique_ptr<slurm_client> client, slurm_job_request request,
                  line_handler on_line, exit_handler on_exit,
                  std::chrono::milliseconds poll = std::chrono::milliseconds(500));
  /// Cancels a job still running and joins the thread.
  ~slurm_job_watch() override;

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
  std::atomic<bool> cancel_{false};
  std::atomic<bool> finished_{false};
  std::atomic<long long> queued_ms_{0};
  std::string output_file_;  ///< request's output path with %j filled in
  long long read_offset_ = 0;
  std::string partial_line_;
  std::thread thread_;
};

} // namespace paratune
