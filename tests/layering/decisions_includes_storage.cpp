// A decision is a function of the ledger and the job: it does not read the pool.
#include "decisions/trial_choice.hpp"
#include "storage/message_pool.hpp"
