#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ledger/model_usage.hpp"

namespace paratune {

/// The section's sentences; one saying the built-in reasoner decided alone
/// when the session used no model.
std::vector<std::string> model_sentences(const model_usage& u);

nlohmann::json model_json(const model_usage& u);

} // namespace paratune
