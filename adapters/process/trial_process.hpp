#pragma once

namespace paratune {

/// A running trial as the validator holds it, wherever it runs: a child
/// process on this host or a batch job on a cluster. Its lines and its end
/// arrive through the callbacks its implementation was given.
class trial_process {
public:
  virtual ~trial_process() = default;
  /// Ends the trial early; its exit is still reported.
  virtual void terminate(int grace_ms = 2000) = 0;
  virtual bool finished() const = 0;
  /// Stops watching and leaves the trial running where it runs (a Slurm
  /// job); its exit is not reported. A local process cannot outlive its
  /// watcher: it is ended.
  virtual void detach() { terminate(500); }
  /// How long a scheduler held it before it started, ms (0 for a process
  /// that starts at once).
  virtual long long queued_ms() const { return 0; }
};

} // namespace paratune
