#pragma once

#include <string>

#include <caf/expected.hpp>
#include <caf/fwd.hpp>

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

} // namespace paratune
