// What the decisions may use: the ledger, the wire types and core.
#include "decisions/proposal_forms.hpp"
#include "decisions/trial_choice.hpp"
#include "decisions/trial_command.hpp"
#include "decisions/trial_scoring.hpp"
#include "core/launch/launch_template.hpp"
#include "ledger/session_ledger.hpp"
