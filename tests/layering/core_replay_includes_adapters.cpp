// core/replay parses measured tables from text; reading the files is
// adapters/config's work.
#include "core/replay/vtrain_table.hpp"
#include "adapters/config/measured_tables.hpp"
