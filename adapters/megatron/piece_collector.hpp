#pragma once

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "adapters/megatron/line_values.hpp"

namespace paratune {

/// Gathers the pieces of one line as views into it before line_values
/// copies them: on the stack for every real line (fork lines have about 25
/// pieces), spilling to the heap only for longer junk.
class piece_collector {
public:
  void add(std::string_view key, std::string_view value) {
    if (spill_.empty() && n_ < stack_.size()) {
      stack_[n_++] = {key, value};
      return;
    }
    if (spill_.empty()) spill_.assign(stack_.begin(), stack_.end());
    spill_.emplace_back(key, value);
  }
  std::span<const line_values::value_type> pieces() const {
    if (!spill_.empty()) return spill_;
    return {stack_.data(), n_};
  }

private:
  std::array<line_values::value_type, 48> stack_;
  std::size_t n_ = 0;
  std::vector<line_values::value_type> spill_;
};

} // namespace paratune
