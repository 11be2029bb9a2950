// The ledger sits below the agents that read through it.
#include "ledger/session_ledger.hpp"
#include "actors/agent.hpp"
