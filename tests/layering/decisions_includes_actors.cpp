// A decision knows no actor and no CAF behavior.
#include "decisions/trial_command.hpp"
#include "actors/agent.hpp"
