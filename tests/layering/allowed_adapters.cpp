// What adapters/diagnosis may use: the other adapters and core.
#include "adapters/diagnosis/evidence_sources.hpp"
#include "adapters/config/catalog.hpp"
#include "adapters/profile/xprof_reader.hpp"
#include "core/diagnosis/analyzer.hpp"
