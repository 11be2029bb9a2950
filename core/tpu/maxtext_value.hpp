#pragma once

#include <optional>
#include <string_view>

namespace paratune {

/// Whether two spellings of a MaxText config value are the same value once
/// MaxText's config has read them (OmegaConf's YAML, then Python's ==, as
/// configs/pyconfig.py:128-150 compares a model file's value with the
/// command line's): numbers by value (500_000, 500000 and 500000.0 are one;
/// 1.0e-5 and 1e-05 are one), booleans in either case, strings without
/// their quotes, lists element by element.
bool same_maxtext_value(std::string_view a, std::string_view b);

/// The number a MaxText value spells (underscores between digits allowed,
/// as YAML 1.1 reads 500_000), or nothing when it is not one.
std::optional<double> maxtext_number(std::string_view v);

} // namespace paratune
