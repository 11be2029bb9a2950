#include "core/control_access.hpp"

#include <charconv>


namespace paratune {

namespace {

template <class T>
std::optional<T> whole_number(std::string_view s) {
  T v{};
  const auto [end, err] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (err != std::errc() || end != s.data() + s.size() || s.empty())
    return std::nullopt;
  return v;
}

} // namespace

control_mechanism parse_control_mechanism(std::string_view word) {
  if (word == "NULL")
    return control_mechanism::null;
  if (word == "CURVE")
    return control_mechanism::curve;
  return control_mechanism::other;
}

std::optional<peer_credentials> parse_ipc_peer(std::string_view address) {
  // The last three ':'-separated fields; whatever precedes them is the
  // (usually empty) socket address.
  std::string_view fields[3];
  for (int i = 2; i >= 0; --i) {
    const auto colon = address.rfind(':');
    if (colon == std::string_view::npos)
      return std::nullopt;
    fields[i] = address.substr(colon + 1);
    address = address.substr(0, colon);
  }
  const auto uid = whole_number<uint32_t>(fields[0]);
  const auto gid = whole_number<uint32_t>(fields[1]);
  const auto pid = whole_number<int64_t>(fields[2]);
  if (!uid || !gid || !pid)
    return std::nullopt;
  return peer_credentials{*uid, *gid, *pid};
}

access_decision decide_control_access(const control_access_policy& policy,
                                      const control_peer& peer) {
  switch (peer.mechanism) {
    case control_mechanism::curve: {
      const auto user = "key:" + peer.client_key;
      if (policy.client_keys.count(peer.client_key))
        return {true, user, {}};
      return {false, user, "its public key is not in authorized_keys"};
    }
    case control_mechanism::null: {
      // Without CURVE only a Unix-socket peer is heard, and only for whom
      // the kernel vouches.
      if (!peer.ipc)
        return {false, "address " + peer.address,
                "not a Unix-socket peer, and TCP clients must speak CURVE"};
      const auto uid = peer.ipc->uid;
      const auto user = "uid:" + std::to_string(uid);
      if (uid == policy.owner_uid || policy.allowed_uids.count(uid))
        return {true, user, {}};
      return {false, user,
              "uid " + std::to_string(uid) + " is neither the daemon's owner (uid "
                + std::to_string(policy.owner_uid) + ") nor in control_users"};
    }
    case control_mechanism::other: break;
  }
  return {false, "address " + peer.address, "an unsupported security mechanism"};
}

} // namespace paratune
