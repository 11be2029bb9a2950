// core does no I/O: no file readers.
#include "core/diagnosis/proposal_engine.hpp"
#include "adapters/config/catalog.hpp"
