// The ledger is a fold over records: it does not read the pool.
#include "ledger/session_ledger.hpp"
#include "storage/message_pool.hpp"
