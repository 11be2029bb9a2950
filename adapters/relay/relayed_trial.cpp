#include "adapters/relay/relayed_trial.hpp"

namespace paratune {

relayed_trial::relayed_trial(relay_receiver_options o, line_handler on_line, exit_handler on_exit,
                             const runner_factory& start, std::chrono::milliseconds end_wait)
  : receiver_(std::make_shared<relay_receiver>(std::move(o), std::move(on_line))) {
  runner_ = start([this, receiver = receiver_, on_exit = std::move(on_exit), end_wait](int status) {
    receiver->finish(end_wait); // the relay's last lines before the end
    on_exit(status);
    finished_ = true; // after the exit is reported, as child_process does
  });
}

relayed_trial::~relayed_trial() { runner_.reset(); }

} // namespace paratune
