// What the ledger may use: itself, the wire types and core.
#include "ledger/ledger_book.hpp"
#include "ledger/session_ledger.hpp"
#include "messages/conversions.hpp"
#include "core/trial_outcome.hpp"
