#pragma once

#include <span>
#include <string_view>

#include "core/tpu/maxtext_rule_table.hpp"

namespace paratune {

/// One key a MaxText config file sets, its value and the line it is on.
struct maxtext_setting {
  std::string_view key;
  std::string_view value;  ///< as the file spells it, quotes and spaces dropped: "500_000", "[silu,linear]"
  int line;                ///< in the file, at maxtext_rules_commit
};

/// One of MaxText's model files (`src/maxtext/configs/models/<name>.yml` at
/// maxtext_rules_commit) for a model paratune's catalog also has: every key
/// it sets, in the file's order. Setting `model_name=<name>` makes MaxText
/// apply these over base.yml before the command line's keys
/// (configs/pyconfig.py:457-491).
struct maxtext_model_file {
  std::string_view name;  ///< MaxText's model_name and paratune's catalog name
  std::string_view file;  ///< path under src/maxtext/
  std::span<const maxtext_setting> settings;

  /// The setting of `key`, or nullptr when the file leaves it to base.yml.
  const maxtext_setting* find(std::string_view key) const;
};

/// The model files of the catalog models MaxText ships (llama2-7b,
/// llama3-8b, llama3.1-405b, qwen2.5-7b).
std::span<const maxtext_model_file> maxtext_model_files();

/// The model file named `name`, or nullptr when the table has none.
const maxtext_model_file* maxtext_model_file_of(std::string_view name);

/// The values MaxText's ModelName accepts (configs/types.py:216-296): a
/// model_name outside it fails pydantic's validation.
std::span<const std::string_view> maxtext_model_names();

/// The values of MaxText's DecoderBlockType (common/common_types.py:92-118).
std::span<const std::string_view> maxtext_decoder_blocks();

} // namespace paratune
