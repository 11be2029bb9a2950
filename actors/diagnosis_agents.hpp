#pragma once

#include <chrono>
#include <string>

#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "messages/wire_types.hpp"

namespace paratune {

class runtime;

struct diagnosis_agent_options {
  std::string knowledge_index_dir;  ///< the BM25 index (RocksDB); empty: no knowledge citations
  std::string knowledge_docs_dir;   ///< documents the index is kept up to date with
  /// Past optimizations that seed the pool's history ledger when it is
  /// empty (configs/optimizations); empty: no seeding.
  std::string optimizations_dir;
};

/// Starts the Analyzer and Proposal agents on a running runtime, subscribed
/// to "diagnose." and "diagnosis.", and hands them to the runtime so that
/// its stop() stops them before the bus and the pool. Fails when the
/// knowledge index cannot be opened or the ledger cannot be seeded.
caf::expected<void> start_diagnosis_agents(caf::actor_system& sys, runtime& rt,
                                           const diagnosis_agent_options& opts);

/// What the diagnosis agents answered to one request.
struct diagnosis_answer {
  wire::diagnosis diagnosis;
  wire::proposal_set proposals; ///< empty when the diagnosis carries an error
};

/// Stores `req` as session `session` through the pool actor, publishes it,
/// and waits for the Analyzer's diagnosis and, unless that carries an
/// error, the Proposal agent's proposal set. An error when the request is
/// not stored or no answer comes within `timeout`. Blocks the caller.
caf::expected<diagnosis_answer> request_diagnosis(caf::actor_system& sys, runtime& rt,
                                                  const std::string& session,
                                                  const wire::diagnose_request& req,
                                                  std::chrono::seconds timeout);

} // namespace paratune
