#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "messages/wire_types.hpp"

namespace paratune::cli {

/// `paratune diagnose --json`: the report and the proposals as one object
/// with at least bottleneck, kpis, top_ops and proposals (each with mesh or
/// config, rationale, predicted, confidence, citations).
nlohmann::json diagnosis_json(const std::string& experiment, const wire::diagnosis& d,
                              const wire::proposal_set& p);

/// The same for a terminal: the KPI health check, the top operations, the
/// bottleneck with its evidence, then the three proposals.
std::string diagnosis_text(const std::string& experiment, const wire::diagnosis& d,
                           const wire::proposal_set& p);

} // namespace paratune::cli
