#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace paratune::bench {

/// What the subscriber process tells the producer, as one line on its
/// standard output ("subscriber delivered=... last_ns=... ...").
struct subscriber_report {
  uint64_t delivered = 0;     ///< distinct pool records delivered
  uint64_t live = 0;          ///< of which from the bus
  uint64_t recovered = 0;     ///< of which from the pool after a loss
  uint64_t gaps = 0;          ///< holes found (skipped bus numbers, unknown pasts)
  uint64_t lost = 0;          ///< records 1..N never delivered
  uint64_t twice = 0;         ///< records delivered more than once
  uint64_t disordered = 0;    ///< deliveries below their stream's last one
  uint64_t late = 0;          ///< deliveries below their session's last one (after a recovery)
  uint64_t duplicates = 0;    ///< copies the feed dropped
  uint64_t history_failures = 0;
  int64_t last_ns = 0;        ///< steady clock at the last delivery

  std::string line() const;
  static std::optional<subscriber_report> parse(std::string_view text);
  /// Every record once, in order on its stream.
  bool exact() const { return lost == 0 && twice == 0 && disordered == 0; }
};

} // namespace paratune::bench
