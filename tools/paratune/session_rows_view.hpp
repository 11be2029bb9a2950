#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "messages/control_wire.hpp"

namespace paratune::cli {

/// Sessions as `list` and `sessions` print them, whether a daemon or a pool
/// directory told of them: one object each for --json ...
nlohmann::json session_rows_json(const std::vector<control::session_row>& rows);
/// ... or a table: id, state, trials done of the budget, trials running,
/// best TFLOP/s per GPU and its trial, job (model on cluster).
void print_session_table(const std::vector<control::session_row>& rows);

} // namespace paratune::cli
