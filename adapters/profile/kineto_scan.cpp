// One streaming pass over a Chrome trace with simdjson On-Demand. Only the
// fields tuning needs are decoded; everything else (args, flows, cpu_ops'
// shapes) is skipped by the parser without materialising it.
#include "adapters/profile/kineto_scan.hpp"

#include "core/input_error.hpp"

#include <simdjson.h>

#include <cmath>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>

namespace paratune {

namespace {

namespace od = simdjson::ondemand;

constexpr std::string_view step_prefix = "ProfilerStep#";

struct string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

std::optional<double> number_of(od::value v) {
  if (v.type() != od::json_type::number)
    return std::nullopt;
  return double(v.get_double());
}

std::optional<int> int_of(od::value v) {
  auto d = number_of(v);
  if (!d || !std::isfinite(*d) || std::fabs(*d) > 2e9)
    return std::nullopt;
  return static_cast<int>(*d);
}

/// A byte count: absent when negative, not finite, or beyond uint64's range
/// (converting such a double is undefined behaviour; the kineto fuzz
/// harness found totalGlobalMem = 4.9e125).
std::optional<std::uint64_t> bytes_of(od::value v) {
  auto d = number_of(v);
  if (!d || !(*d >= 0 && *d < 0x1p64))
    return std::nullopt;
  return static_cast<std::uint64_t>(*d);
}

std::string string_of(od::value v) {
  if (v.type() != od::json_type::string)
    return {};
  return std::string(std::string_view(v.get_string()));
}

// The fields of one traceEvents entry that matter here. Views point into
// the parser's string buffer, valid for the whole document.
struct event_fields {
  std::string_view ph, cat, name;
  double ts = NAN, dur = NAN;
  int pid = -1;
};

class scanner {
 public:
  explicit scanner(std::string_view source) : source_(source) {}

  kineto_scan_result run(simdjson::padded_string_view json) {
    od::parser parser;
    od::document doc = parser.iterate(json);
    if (doc.type() == od::json_type::array) {  // the bare-array Chrome trace form
      saw_events_ = true;
      events(doc.get_array());
    } else {
      top_level(doc.get_object());
    }
    return finish();
  }

  kineto_scan_result finish() {
    if (!saw_events_)
      throw input_error(std::string(source_) + ": no traceEvents array; not a Kineto trace");
    if (skipped_ > 0)
      out_.header.warnings.push_back(std::to_string(skipped_)
                                     + " traceEvents entries were not objects or had bad times");
    return std::move(out_);
  }

  std::size_t events_read() const { return out_.header.event_count; }

 private:
  void top_level(od::object root) {
    for (auto fr : root) {
      od::field f = std::move(fr);
      std::string_view key = f.unescaped_key();
      od::value v = f.value();
      if (key == "traceEvents") {
        saw_events_ = true;
        events(v.get_array());
      } else if (key == "deviceProperties" && v.type() == od::json_type::array) {
        for (auto d : v.get_array())
          device(d.value());
      } else if (key == "distributedInfo" && v.type() == od::json_type::object) {
        distributed(v.get_object());
      } else if (key == "schemaVersion") {
        out_.header.schema_version = int_of(v);
      }
    }
  }

  void device(od::value v) {
    if (v.type() != od::json_type::object)
      return;
    kineto_device_properties d;
    for (auto fr : v.get_object()) {
      od::field f = std::move(fr);
      std::string_view key = f.unescaped_key();
      od::value x = f.value();
      if (key == "id")
        d.id = int_of(x).value_or(0);
      else if (key == "name")
        d.name = string_of(x);
      else if (key == "totalGlobalMem")
        d.total_global_mem = bytes_of(x).value_or(0);
      else if (key == "computeMajor")
        d.compute_major = int_of(x).value_or(0);
      else if (key == "computeMinor")
        d.compute_minor = int_of(x).value_or(0);
      else if (key == "numSms")
        d.num_sms = int_of(x).value_or(0);
    }
    out_.header.devices.push_back(std::move(d));
  }

  void distributed(od::object o) {
    kineto_distributed_info& d = out_.header.distributed;
    for (auto fr : o) {
      od::field f = std::move(fr);
      std::string_view key = f.unescaped_key();
      od::value x = f.value();
      if (key == "backend")
        d.backend = string_of(x);
      else if (key == "rank")
        d.rank = int_of(x);
      else if (key == "world_size")
        d.world_size = int_of(x);
      else if (key == "nccl_version")
        d.nccl_version = string_of(x);
    }
  }

  void events(od::array arr) {
    for (auto er : arr) {
      od::value ev = std::move(er);
      ++out_.header.event_count;
      if (ev.type() != od::json_type::object) {
        ++skipped_;
        continue;
      }
      event_fields e = fields(ev.get_object());
      if (e.ph == "X")
        complete_event(e);
    }
  }

  static event_fields fields(od::object obj) {
    event_fields e;
    for (auto fr : obj) {
      od::field f = std::move(fr);
      std::string_view key = f.unescaped_key();
      if (key.size() > 4)
        continue;  // "args" and the like: skipped unread
      od::value v = f.value();
      if (key == "ph" || key == "cat" || key == "name") {
        if (v.type() != od::json_type::string)
          continue;
        std::string_view s = v.get_string();
        (key == "ph" ? e.ph : key == "cat" ? e.cat : e.name) = s;
      } else if (key == "ts") {
        e.ts = number_of(v).value_or(NAN);
      } else if (key == "dur") {
        e.dur = number_of(v).value_or(NAN);
      } else if (key == "pid") {
        e.pid = int_of(v).value_or(-1);  // string pids ("Spans") are not devices
      }
    }
    return e;
  }

  void complete_event(const event_fields& e) {
    std::optional<gpu_activity_kind> kind;
    if (e.cat == "kernel")
      kind = is_nccl_kernel_name(e.name) ? gpu_activity_kind::communication
                                         : gpu_activity_kind::compute;
    else if (e.cat == "gpu_memcpy")
      kind = gpu_activity_kind::memcpy;
    else if (e.cat == "gpu_memset")
      kind = gpu_activity_kind::memset;
    bool step = !kind && e.name.substr(0, step_prefix.size()) == step_prefix
                && e.cat != "gpu_user_annotation";  // the GPU-side copy of the step range
    if (!kind && !step)
      return;
    if (!std::isfinite(e.ts) || !std::isfinite(e.dur) || e.dur < 0) {
      ++skipped_;
      return;
    }
    if (step)
      add_step(e);
    else
      out_.activities.push_back({e.ts, e.ts + e.dur, *kind, e.pid, intern(e.name)});
  }

  void add_step(const event_fields& e) {
    kineto_step s;
    s.name = std::string(e.name);
    std::string digits(e.name.substr(step_prefix.size()));
    try {
      std::size_t used = 0;
      long long n = std::stoll(digits, &used);
      if (used == digits.size())
        s.number = n;
    } catch (const std::exception&) {
      // a step name without a number still delimits a window
    }
    s.start_us = e.ts;
    s.duration_us = e.dur;
    out_.steps.push_back(std::move(s));
  }

  std::uint32_t intern(std::string_view name) {
    auto it = name_ids_.find(name);
    if (it != name_ids_.end())
      return it->second;
    auto id = static_cast<std::uint32_t>(out_.names.size());
    out_.names.emplace_back(name);
    name_ids_.emplace(std::string(name), id);
    return id;
  }

  std::string_view source_;
  kineto_scan_result out_;
  std::unordered_map<std::string, std::uint32_t, string_hash, std::equal_to<>> name_ids_;
  std::size_t skipped_ = 0;
  bool saw_events_ = false;

};

std::string describe(const simdjson::simdjson_error& e) { return e.what(); }

bool salvageable(simdjson::error_code code) {
  return code == simdjson::UNCLOSED_STRING || code == simdjson::INCOMPLETE_ARRAY_OR_OBJECT
         || code == simdjson::TAPE_ERROR;
}

// Scans, turning a JSON error part-way into a partial result.
kineto_scan_result scan_padded(simdjson::padded_string_view json, std::string_view source) {
  scanner s(source);
  try {
    return s.run(json);
  } catch (const simdjson::simdjson_error& e) {
    if (s.events_read() == 0)
      throw;
    kineto_scan_result r = s.finish();
    r.header.partial = true;
    r.header.warnings.push_back(std::string(source) + ": JSON error after "
                                + std::to_string(r.header.event_count)
                                + " traceEvents entries (" + describe(e)
                                + "); the rest of the trace was not read");
    return r;
  }
}

// A trace cut inside a string fails simdjson's first stage as a whole.
// Retrying on prefixes that end at one of the last '}' recovers the events
// written before the cut.
kineto_scan_result salvage(std::string_view json, std::string_view source,
                           const simdjson::simdjson_error& first) {
  std::size_t end = json.size();
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::size_t brace = json.rfind('}', end == 0 ? 0 : end - 1);
    if (brace == std::string_view::npos || end == 0)
      break;
    end = brace;
    simdjson::padded_string prefix(json.substr(0, brace + 1));
    try {
      kineto_scan_result r = scan_padded(prefix, source);
      r.header.partial = true;
      r.header.warnings.push_back(std::string(source) + ": damaged JSON (" + describe(first)
                                  + "); read the first " + std::to_string(brace + 1)
                                  + " of " + std::to_string(json.size()) + " bytes");
      return r;
    } catch (const simdjson::simdjson_error&) {
      continue;
    } catch (const input_error&) {
      continue;
    }
  }
  throw input_error(std::string(source) + ": not valid trace JSON (" + describe(first) + ")");
}

} // namespace

kineto_scan_result scan_kineto_json(std::string_view json, std::size_t capacity,
                                    std::string_view source) {
  simdjson::padded_string copy;
  simdjson::padded_string_view view;
  if (capacity >= json.size() + simdjson::SIMDJSON_PADDING) {
    view = simdjson::padded_string_view(json.data(), json.size(), capacity);
  } else {
    copy = simdjson::padded_string(json);
    view = copy;
  }
  try {
    return scan_padded(view, source);
  } catch (const simdjson::simdjson_error& e) {
    if (salvageable(e.error()))
      return salvage(json, source, e);
    throw input_error(std::string(source) + ": not valid trace JSON (" + describe(e) + ")");
  }
}

} // namespace paratune
