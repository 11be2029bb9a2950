#include "core/tuning/space_planner.hpp"

#include <algorithm>
#include <map>

#include "core/input_error.hpp"
#include "core/megatron_rules.hpp"
#include "core/text.hpp"
#include "core/tuning/memory_screen.hpp"

namespace paratune {

namespace {

// A value of one key, parsed once before the enumeration so that the hot
// loop writes a field instead of parsing text (set_value builds strings).
struct assignment {
  const config_key* key = nullptr;
  int value = 0;  ///< as config_key::read gives it

  void apply(training_config& c) const { key->write(c, value); }
};

// Parses through set_value (its checks and messages), then reads the field back.
assignment compile(const std::string& key, const std::string& text) {
  training_config scratch;
  set_value(scratch, key, text);
  const config_key* k = find_config_key(key);  // set_value took it, so it is a key
  return {k, k->read(scratch)};
}

std::vector<std::vector<assignment>> compile(const config_space& space) {
  check_space(space);
  std::vector<std::vector<assignment>> out;
  for (const auto& [key, values] : space) {
    out.emplace_back();
    for (const auto& v : values)
      out.back().push_back(compile(key, v));
  }
  return out;
}

// The pieces of `text` between the `sep` characters, each trimmed.
std::vector<std::string> trimmed_pieces(const std::string& text, char sep) {
  auto out = split(text, sep);
  for (auto& piece : out)
    piece = trim(piece);
  return out;
}

// The ranking: more tokens/s per GPU, then less memory, then first seen.
struct ranked {
  planned_config planned;
  std::size_t order = 0;
};

bool better(const ranked& a, const ranked& b) {
  const auto& pa = a.planned.prediction;
  const auto& pb = b.planned.prediction;
  if (pa.tokens_per_s_per_gpu != pb.tokens_per_s_per_gpu)
    return pa.tokens_per_s_per_gpu > pb.tokens_per_s_per_gpu;
  if (pa.peak_memory_mib != pb.peak_memory_mib)
    return pa.peak_memory_mib < pb.peak_memory_mib;
  return a.order < b.order;
}

// Keeps the best variant of each layout and how many of its variants fit;
// the layouts ranked by their best variant. A space has at most a few
// hundred layouts, so a map of them all costs nothing beside the screening.
class best_per_layout {
public:
  void offer(ranked r, int world_size) {
    auto key = plan_layout(r.planned.config, world_size);
    auto [it, fresh] = best_.try_emplace(std::move(key), r);
    ++it->second.planned.variants;
    if (!fresh && better(r, it->second)) {
      const auto variants = it->second.planned.variants;
      it->second = std::move(r);
      it->second.planned.variants = variants;
    }
  }
  std::size_t layouts() const { return best_.size(); }
  std::vector<planned_config> take(std::size_t k) {
    std::vector<ranked> all;
    all.reserve(best_.size());
    for (auto& [key, r] : best_)
      all.push_back(std::move(r));
    std::sort(all.begin(), all.end(), better);
    std::vector<planned_config> out;
    for (std::size_t i = 0; i < all.size() && i < k; ++i)
      out.push_back(std::move(all[i].planned));
    return out;
  }

private:
  std::map<std::string, ranked> best_;
};

// Screens one candidate: rules, then tune's memory screen as it stands
// before any run (screen_before_any_run), then the ranking.
void screen(const plan_request& r, const training_config& c, std::size_t order,
            plan_result& out, best_per_layout& top) {
  const auto broken = check_megatron_rules(r.model, c, r.world_size);
  if (!broken.empty()) {
    ++out.rule_rejected;
    for (const auto& v : broken)
      if (++out.rejected_by_rule[v.rule] == 1)
        out.rule_example[v.rule] = v.message;
    return;
  }
  auto p = predict(r.model, r.cluster, r.world_size, c, r.prec, r.cal);
  if (screen_before_any_run(c, p)) {
    ++out.memory_rejected;
    return;
  }
  ++out.fitting;
  top.offer({{c, std::move(p), 0}, order}, r.world_size);
}

} // namespace

std::string plan_layout(const training_config& c, int world_size) {
  const int split = std::max(1, c.tp * c.pp * c.cp);
  return "tp=" + std::to_string(c.tp) + " pp=" + std::to_string(c.pp)
         + " dp=" + std::to_string(world_size / split) + " cp=" + std::to_string(c.cp)
         + " ep=" + std::to_string(c.ep) + " mbs=" + std::to_string(c.mbs);
}

void check_space(const config_space& space) {
  for (const auto& [key, values] : space) {
    if (values.empty())
      throw input_error("search space key '" + key + "' has no values");
    training_config scratch;
    for (const auto& v : values)
      set_value(scratch, key, v); // throws naming the key or the value
  }
}

std::size_t space_size(const config_space& space) {
  std::size_t n = 1;
  for (const auto& [key, values] : space)
    n *= values.size();
  return n;
}

config_space override_space(config_space space, const std::string& overrides) {
  for (const auto& item : trimmed_pieces(overrides, ',')) {
    if (item.empty())
      continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw input_error("search space item '" + item + "': expected KEY=V1|V2|...");
    const auto key = trim(item.substr(0, eq));
    auto values = trimmed_pieces(item.substr(eq + 1), '|');
    std::erase(values, std::string{});
    if (values.empty())
      throw input_error("search space key '" + key + "' has no values");
    space[key] = std::move(values);
  }
  check_space(space);
  return space;
}

plan_result plan_space(const plan_request& r) {
  const auto slots = compile(r.space);
  plan_result out;
  best_per_layout top;
  // An odometer over the value indices: the last key turns fastest, and each
  // step rewrites only the keys whose index changed.
  std::vector<std::size_t> index(slots.size(), 0);
  training_config c = r.base;
  for (std::size_t k = 0; k < slots.size(); ++k)
    slots[k][0].apply(c);
  for (bool more = true; more; ++out.candidates) {
    screen(r, c, out.candidates, out, top);
    more = false;
    for (std::size_t k = slots.size(); k-- > 0;) {
      if (++index[k] < slots[k].size()) {
        slots[k][index[k]].apply(c);
        more = true;
        break;
      }
      index[k] = 0;
      slots[k][0].apply(c);
    }
  }
  out.layouts = top.layouts();
  out.top = top.take(r.top_k);
  return out;
}

} // namespace paratune
