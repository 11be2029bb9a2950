#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace paratune {

// Authenticating a trial's relay lines (docs/security.md, "The relay
// ingress"). The relay ingress is the one bus endpoint cluster nodes reach,
// so anyone who can reach it could publish lines for any trial. Each line
// therefore carries an HMAC-SHA256 of its frames under a key that belongs
// to its trial alone. The key is derived from a master secret that never
// leaves paratune's host (a 0600 file in the daemon's state directory) and
// is handed to the trial's paratune-relay in its environment, never on its
// command line: argv is readable by every user of a node (ps), a job's
// environment only by its owner and the cluster's administrators.

/// A key: the master secret or a trial's key (32 bytes).
using relay_key = std::array<unsigned char, 32>;

/// The variable paratune-relay reads its trial's key from, as 64 hex digits.
/// The relay removes it from its own environment before it starts the
/// trial's command, which never sees it.
inline constexpr const char* relay_key_env = "PARATUNE_RELAY_KEY";

/// A fresh master secret from the operating system's random source.
relay_key random_relay_key();

/// Trial `trial` of session `session`'s key: HMAC-SHA256 of the master over
/// a label, the session and the trial. One trial's key says nothing of
/// another's, and a daemon that restarts derives the same keys again (a
/// relay still running keeps publishing with the key it was given).
relay_key relay_trial_key(const relay_key& master, std::string_view session, int trial);

/// The fourth frame of a relay's bus message: HMAC-SHA256 under the trial's
/// key of the three frames (topic, payload, bus sequence), each preceded by
/// its length so that no two different frame triples give the same input.
std::string relay_frame_mac(const relay_key& key, std::string_view topic,
                            std::string_view payload, std::string_view sequence);

/// Whether `mac` is relay_frame_mac of the frames, compared in constant time.
bool relay_frame_authentic(const relay_key& key, std::string_view topic,
                           std::string_view payload, std::string_view sequence,
                           std::string_view mac);

/// 64 lowercase hex digits.
std::string to_hex(const relay_key& key);
/// nullopt unless `text` is exactly 64 hex digits.
std::optional<relay_key> relay_key_from_hex(std::string_view text);

/// The master secret at `path`: read when the file exists, else made and
/// written there (mode 0600, created exclusively, synced). Throws
/// std::runtime_error naming the path when the file cannot be made or read,
/// is not 32 bytes, is not owned by this user, or can be read by others (a
/// key anyone on the host could read authenticates nothing).
relay_key load_or_create_relay_master(const std::string& path);

} // namespace paratune
