#pragma once

// Readers for the published performance tables in data/perf/ (see its
// README.md): each returns the rows as validation's plain data, with
// the model and configuration every table states or implies. Callers find
// data/ with find_data_dir() (adapters/config/executable_paths.hpp).

#include <string>
#include <vector>

#include "validation/published_tables.hpp"

namespace paratune {

// The tables' models come from core/reference_specs.hpp, built in code so
// that the readers do not depend on the catalog files.

// Each reader takes the data directory and throws input_error naming the
// file, line and column of anything missing or malformed.

/// SC21 Table 1: full recompute; vpp from layers_per_virtual_stage.
std::vector<sc21_row> read_sc21_table(const std::string& data_dir);
/// Korthikanti: recompute and sp left off (the validation sets them per case).
std::vector<korthikanti_row> read_korthikanti_table(const std::string& data_dir);
/// Megatron-Core r0.8: micro-batch and recompute are not stated; assumed
/// mbs 1, no recompute, SP with TP, distributed optimizer, grad and param overlap.
std::vector<megatron_core_row> read_megatron_core_table(const std::string& data_dir);
/// OptiCo Figure 5: distributed optimizer with grad and param overlap (its
/// launch template sets --overlap-param-gather, which requires it).
std::vector<optico_row> read_optico_fig5_table(const std::string& data_dir);
/// vTrain multi-node: full recompute, GPT with vocab 51200.
std::vector<vtrain_row> read_vtrain_multi_table(const std::string& data_dir);

/// All of the above.
published_tables read_published_tables(const std::string& data_dir);

} // namespace paratune
