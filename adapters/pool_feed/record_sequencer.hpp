#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "adapters/bus/zmq_bus.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// Turns pool records that reach a subscriber twice over (live from the bus,
/// and again from the pool after a loss) into one delivery each, in pool
/// order on every stream. A stream is one bus topic (telemetry.<sid>.<n>):
/// the bus numbers messages per publisher and topic, so a loss shows on its
/// own topic, at that topic's next message.
///
/// Each stream keeps the highest pool sequence number it delivered; its
/// records below that number were all delivered (live in bus order with no
/// number skipped, or recovered before the message that revealed the hole),
/// so a record at or below it is a duplicate.
///
/// Order holds per stream. Across the streams of one session it holds while
/// nothing is lost: a loss on topic A shows only at A's next message, by
/// which time topic B's later records may have been delivered, so A's
/// recovered records come after them (counted as `late` by whoever checks).
///
/// No I/O: record_feed asks the pool and feeds the answer back.
class record_sequencer {
public:
  enum class verdict {
    deliver,   ///< new, and nothing before it on its stream is missing
    duplicate, ///< delivered already
    recover,   ///< records before it may be missing: read the pool from
               ///< resume_after(topic) up to it, offer each, then offer it
  };

  /// A message from the bus with its bus number. Recording the number is
  /// the only effect; a `deliver` verdict also marks the record delivered.
  verdict offer_live(std::string_view topic, const bus_sequence& number, const wire::envelope& e);

  /// A record read from the pool in a read that started after `read_from`
  /// (or the live record after its recovery, read_from = its stream's
  /// resume_after): true when it is new on its stream, which it is then
  /// marked as. A stream whose last delivery is below `read_from` takes it
  /// only when the session's floor covers the difference: its own records
  /// in between were not read, and delivering past them would lose them.
  bool offer_recovered(std::string_view topic, const wire::envelope& e, uint64_t read_from);

  /// A recovery of the stream failed: its next live message recovers again
  /// instead of continuing past the hole.
  void unsettle(std::string_view topic);

  /// Where a recovery of `topic`'s stream starts: its last delivered pool
  /// sequence number (0 for a stream not seen yet).
  uint64_t resume_after(std::string_view topic) const;

  /// Where to read the pool from to fill a hole on `topic`'s stream: its
  /// session's floor when that is no more than `reach` below the stream's
  /// last delivery (one read then covers every stream of the session and
  /// moves the floor, so the next hole does not read the same records
  /// again), else the stream's last delivery.
  uint64_t recovery_start(std::string_view topic, const std::string& session,
                          uint64_t reach) const;

  /// Where a catch-up of `session` starts: every record of the session at or
  /// below it was delivered.
  uint64_t session_floor(const std::string& session) const;
  /// A read of the session's pool history from at most its floor up to
  /// `seq` delivered everything in between.
  void covered(const std::string& session, uint64_t from, uint64_t seq);

  /// The streams seen, by topic.
  size_t streams() const { return streams_.size(); }

private:
  struct stream {
    uint64_t publisher = 0;
    uint64_t bus_seq = 0;
    bool numbered = false;  ///< bus_seq is known (the stream was seen live)
    uint64_t delivered = 0; ///< pool sequence number of the last delivery
  };
  stream& stream_of(std::string_view topic);

  std::map<std::string, stream, std::less<>> streams_;
  std::map<std::string, uint64_t, std::less<>> floors_; ///< per session
};

} // namespace paratune
