#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

/// How many values an option takes, as argparse counts them (its nargs).
enum class option_arity : uint8_t {
  none,          ///< a switch (store_true, store_false, store_const)
  exactly,       ///< `count` values (nargs None is 1)
  optional,      ///< "?": one value if the next word is not an option
  any,           ///< "*": every following word up to the next option
  at_least_one,  ///< "+": as "*", and at least one
};

/// One option of Megatron-LM's parser.
struct megatron_option {
  std::string name;  ///< "--mock-data", "-h"
  option_arity arity = option_arity::none;
  int count = 0;     ///< values taken with option_arity::exactly
};

/// Every option Megatron-LM's pretrain_gpt.py parser defines, read from the
/// text of data/megatron_lm/pretrain_gpt_flags.txt ("NAME ARITY" lines,
/// '#' comments), sorted by name for lookup.
class megatron_option_list {
public:
  /// Throws input_error naming the line that is not "NAME ARITY".
  static megatron_option_list parse(std::string_view text);

  /// The option spelled exactly `name` (Megatron-LM's parser does not take
  /// abbreviations), or nullptr.
  const megatron_option* find(std::string_view name) const;
  size_t size() const { return options_.size(); }

private:
  std::vector<megatron_option> options_;
};

} // namespace paratune
