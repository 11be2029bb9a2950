#include "adapters/relay/relay_wire.hpp"

#include <msgpack.hpp>

namespace paratune {

namespace {

/// No container may hold more elements, and no string more bytes, than the
/// payload has bytes; nothing nests deeper than a fetch reply does.
msgpack::unpack_limit limits_for(size_t size) {
  constexpr size_t max_depth = 4;
  return msgpack::unpack_limit(size, size, size, size, size, max_depth);
}

/// The payload as one msgpack object, or nullopt (malformed, over a limit,
/// or trailing bytes).
std::optional<msgpack::object_handle> unpack_whole(std::string_view payload) {
  try {
    size_t offset = 0;
    auto h = msgpack::unpack(payload.data(), payload.size(), offset, nullptr, nullptr,
                             limits_for(payload.size()));
    if (offset != payload.size())
      return std::nullopt;
    return h;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool key_is(const msgpack::object& k, std::string_view name) {
  return k.type == msgpack::type::STR && std::string_view(k.via.str.ptr, k.via.str.size) == name;
}

std::optional<uint64_t> positive(const msgpack::object& v) {
  if (v.type != msgpack::type::POSITIVE_INTEGER)
    return std::nullopt;
  return v.via.u64;
}

std::optional<std::string> text(const msgpack::object& v, size_t max) {
  if (v.type != msgpack::type::STR || v.via.str.size > max)
    return std::nullopt;
  return std::string(v.via.str.ptr, v.via.str.size);
}

/// Calls `field(key, value)` for every entry of a map; false when the
/// object is not a map or `field` refuses an entry.
template <class F>
bool each_field(const msgpack::object& o, F field) {
  if (o.type != msgpack::type::MAP)
    return false;
  for (uint32_t i = 0; i < o.via.map.size; ++i)
    if (!field(o.via.map.ptr[i].key, o.via.map.ptr[i].val))
      return false;
  return true;
}

bool read_exit_code(const msgpack::object& v, int& out) {
  if (v.type == msgpack::type::POSITIVE_INTEGER && v.via.u64 <= 255) {
    out = int(v.via.u64);
    return true;
  }
  return false; // statuses are 0..255 (128 + signal included)
}

} // namespace

std::string encode(const relay_message& m) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  const bool line = m.kind == relay_kind::line;
  pk.pack_map(4);
  pk.pack("kind");
  pk.pack(line ? "line" : "end");
  pk.pack("seq");
  pk.pack(m.seq);
  pk.pack(line ? "line" : "exit");
  if (line)
    pk.pack(m.line);
  else
    pk.pack(m.exit_code);
  pk.pack("fetch");
  pk.pack(m.fetch);
  return {buf.data(), buf.size()};
}

std::optional<relay_message> decode_relay_message(std::string_view payload) {
  if (payload.size() > max_relay_line + 1024)
    return std::nullopt;
  auto h = unpack_whole(payload);
  if (!h)
    return std::nullopt;
  relay_message m;
  std::optional<std::string> kind;
  bool has_seq = false;
  const bool ok = each_field(h->get(), [&](const msgpack::object& k, const msgpack::object& v) {
    if (key_is(k, "kind"))
      return (kind = text(v, 8)).has_value();
    if (key_is(k, "seq")) {
      const auto s = positive(v);
      m.seq = s.value_or(0);
      return has_seq = s.has_value();
    }
    if (key_is(k, "line")) {
      auto t = text(v, max_relay_line);
      m.line = t.value_or("");
      return t.has_value();
    }
    if (key_is(k, "exit"))
      return read_exit_code(v, m.exit_code);
    if (key_is(k, "fetch")) {
      auto t = text(v, max_relay_endpoint);
      m.fetch = t.value_or("");
      return t.has_value() && (m.fetch.empty() || m.fetch.rfind("tcp://", 0) == 0);
    }
    return true; // a field a newer relay added
  });
  if (!ok || !kind || !has_seq)
    return std::nullopt;
  if (*kind == "line" && m.seq > 0)
    m.kind = relay_kind::line;
  else if (*kind == "end")
    m.kind = relay_kind::end;
  else
    return std::nullopt;
  return m;
}

std::string encode(const fetch_request& r) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(2);
  pk.pack("first");
  pk.pack(r.first);
  pk.pack("last");
  pk.pack(r.last);
  return {buf.data(), buf.size()};
}

std::optional<fetch_request> decode_fetch_request(std::string_view payload) {
  if (payload.size() > 256)
    return std::nullopt;
  auto h = unpack_whole(payload);
  if (!h)
    return std::nullopt;
  std::optional<uint64_t> first, last;
  const bool ok = each_field(h->get(), [&](const msgpack::object& k, const msgpack::object& v) {
    if (key_is(k, "first"))
      return (first = positive(v)).has_value();
    if (key_is(k, "last"))
      return (last = positive(v)).has_value();
    return true;
  });
  if (!ok || !first || !last || *first == 0 || *first > *last)
    return std::nullopt;
  return fetch_request{*first, *last};
}

std::string encode(const fetch_reply& r) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(2);
  pk.pack("lines");
  pk.pack_array(uint32_t(r.lines.size()));
  for (const auto& [seq, line] : r.lines) {
    pk.pack_array(2);
    pk.pack(seq);
    pk.pack(line);
  }
  pk.pack("last_seq");
  pk.pack(r.last_seq);
  return {buf.data(), buf.size()};
}

std::optional<fetch_reply> decode_fetch_reply(std::string_view payload) {
  if (payload.size() > max_fetch_bytes + max_fetch_lines * 64)
    return std::nullopt;
  auto h = unpack_whole(payload);
  if (!h)
    return std::nullopt;
  fetch_reply r;
  auto read_line = [&r](const msgpack::object& e) {
    if (e.type != msgpack::type::ARRAY || e.via.array.size != 2)
      return false;
    const auto seq = positive(e.via.array.ptr[0]);
    auto line = text(e.via.array.ptr[1], max_relay_line);
    if (!seq || *seq == 0 || !line)
      return false;
    r.lines.emplace_back(*seq, std::move(*line));
    return true;
  };
  const bool ok = each_field(h->get(), [&](const msgpack::object& k, const msgpack::object& v) {
    if (key_is(k, "last_seq")) {
      const auto s = positive(v);
      r.last_seq = s.value_or(0);
      return s.has_value();
    }
    if (!key_is(k, "lines"))
      return true;
    if (v.type != msgpack::type::ARRAY || v.via.array.size > max_fetch_lines)
      return false;
    for (uint32_t i = 0; i < v.via.array.size; ++i)
      if (!read_line(v.via.array.ptr[i]))
        return false;
    return true;
  });
  if (!ok)
    return std::nullopt;
  return r;
}

} // namespace paratune
