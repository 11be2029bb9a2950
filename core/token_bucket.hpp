#pragma once

// A rate limit: `rate` tokens a second up to `burst`; each request takes
// one. The caller gives the time, so the decision stays pure and testable.

#include <algorithm>

namespace paratune {

class token_bucket {
public:
  token_bucket(double rate_per_s, double burst) : rate_(rate_per_s), burst_(burst), tokens_(burst) {}

  /// Whether a request at `now_s` (seconds on any steady clock) may pass;
  /// it takes a token when it does.
  bool take(double now_s) {
    if (last_s_ >= 0 && now_s > last_s_)
      tokens_ = std::min(burst_, tokens_ + (now_s - last_s_) * rate_);
    last_s_ = std::max(last_s_, now_s);
    if (tokens_ < 1)
      return false;
    tokens_ -= 1;
    return true;
  }

private:
  double rate_, burst_, tokens_;
  double last_s_ = -1;
};

} // namespace paratune
