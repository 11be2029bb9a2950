#pragma once

#include <string>
#include <vector>

#include "ledger/session_ledger.hpp"
#include "messages/codec.hpp"

namespace paratune {

/// A session's records applied to a fresh ledger, for the readers that
/// are handed the records (a report, `ask`, the dashboard's page). A
/// record that does not decode is an error here, as a report must not
/// leave a trial out silently: throws wire::decode_error naming it.
/// `session` empty: the records' own session.
inline session_ledger readable_ledger_of(const std::string& session,
                                         const std::vector<wire::envelope>& history) {
  session_ledger ledger(session);
  ledger.apply(history);
  if (!ledger.unreadable().empty())
    throw wire::decode_error(ledger.unreadable());
  return ledger;
}

} // namespace paratune
