// Adapters read files and servers; the pool and index belong to storage.
#include "adapters/diagnosis/evidence_sources.hpp"
#include "storage/knowledge_index.hpp"
