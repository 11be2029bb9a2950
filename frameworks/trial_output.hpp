#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/secret_redactor.hpp"
#include "frameworks/framework.hpp"

namespace paratune {

/// Where a trial's output enters paratune, for every framework and every
/// loop: each line has the session's secrets replaced by "[redacted]"
/// before anything keeps it (the tail, the pool, the bus, the reader's
/// error texts), is kept among the last lines, and is read by the
/// framework's run reader.
class trial_output {
public:
  static constexpr std::size_t tail_lines = 40;

  trial_output(const framework& f, secret_redactor redactor);

  /// `raw` as paratune may keep it, added to the tail.
  std::string keep(const std::string& raw);

  /// What one kept line told the reader.
  struct reading {
    std::vector<iteration_sample> iterations;   ///< completed by this line
    std::optional<logged_failure> new_failure;  ///< the first failure this line added
  };
  /// Reads a line keep() returned (a line paratune reads itself, a GPU
  /// monitor's, is kept but not read).
  reading read(const std::string& kept);
  /// The output ended.
  void finish() { reader_->finish(); }

  const run_reader& reader() const { return *reader_; }
  const std::deque<std::string>& tail() const { return tail_; }
  /// The last line kept, or "no output".
  std::string last_line() const { return tail_.empty() ? "no output" : tail_.back(); }

private:
  secret_redactor redactor_;
  std::unique_ptr<run_reader> reader_;
  std::deque<std::string> tail_;
  std::size_t failures_seen_ = 0;
};

} // namespace paratune
