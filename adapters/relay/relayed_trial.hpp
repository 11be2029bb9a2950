#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "adapters/process/trial_process.hpp"
#include "adapters/relay/relay_receiver.hpp"

namespace paratune {

/// A trial whose command runs under paratune-relay somewhere else (a Slurm
/// job): another trial_process runs it and reports its end, while its lines
/// come from the relay. The end is reported once every line was delivered
/// (relay_receiver::finish), so the caller sees lines, then the exit, as
/// from a child process.
class relayed_trial final : public trial_process {
public:
  using line_handler = std::function<void(const std::string& line)>;
  using exit_handler = std::function<void(int status)>;
  /// Starts the runner, given the exit handler it must call.
  using runner_factory = std::function<std::unique_ptr<trial_process>(exit_handler)>;

  /// Subscribes to the relay's topic, then starts the runner. Throws what
  /// relay_receiver and the factory throw.
  relayed_trial(relay_receiver_options o, line_handler on_line, exit_handler on_exit,
                const runner_factory& start,
                std::chrono::milliseconds end_wait = std::chrono::seconds(5));
  /// Destroys the runner first (it may still report an exit), then the receiver.
  ~relayed_trial() override;

  void terminate(int grace_ms = 2000) override { runner_->terminate(grace_ms); }
  void detach() override { runner_->detach(); }
  bool finished() const override { return finished_; }
  /// The runner's: how long the scheduler held the job.
  long long queued_ms() const override { return runner_ ? runner_->queued_ms() : 0; }
  relay_receiver_counts counts() const { return receiver_->counts(); }

private:
  std::shared_ptr<relay_receiver> receiver_;
  std::unique_ptr<trial_process> runner_;
  std::atomic<bool> finished_{false};
};

} // namespace paratune
