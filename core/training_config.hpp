#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/value_range.hpp"

namespace paratune {

/// Activation recomputation granularity (Megatron --recompute-granularity).
enum class recompute_mode { none, selective, full };

const char* to_string(recompute_mode m);
/// Accepts none, selective (or sel), full.
bool parse_recompute(const std::string& text, recompute_mode& out);

/// One Megatron-LM parallel training configuration. The data-parallel size
/// is not stored: it follows from the world size (see data_parallel()).
struct training_config {
  int tp = 1;                 ///< tensor parallel size
  int pp = 1;                 ///< pipeline parallel size
  int cp = 1;                 ///< context parallel size
  int ep = 1;                 ///< expert parallel size
  int vpp = 1;                ///< virtual pipeline stages per pipeline rank
  int mbs = 1;                ///< micro batch size
  int gbs = 1;                ///< global batch size
  int seq = 2048;             ///< sequence length
  bool sp = false;            ///< sequence parallel
  recompute_mode recompute = recompute_mode::none;
  bool recompute_block = false; ///< recompute method: block (true) or uniform
  int recompute_layers = 0;   ///< --recompute-num-layers, 0 = Megatron's default (1 / all)
  bool dist_opt = false;      ///< distributed optimizer
  bool overlap_grad = false;  ///< --overlap-grad-reduce
  bool overlap_param = false; ///< --overlap-param-gather
  bool fused_ce = false;      ///< --cross-entropy-loss-fusion
  int first_pp_layers = 0;    ///< layers on the first stage, 0 = even split
  int last_pp_layers = 0;     ///< layers on the last stage, 0 = even split
  /// --account-for-embedding-in-pipeline-split: the embedding counts as one
  /// layer of the split, so the first stage builds one transformer layer less.
  bool pp_account_embedding = false;
  /// --account-for-loss-in-pipeline-split: the output layer and loss count
  /// as one layer, so the last stage builds one transformer layer less.
  bool pp_account_loss = false;
  /// --grad-reduce-in-bf16: gradients accumulate and reduce in bf16 (2 B)
  /// instead of fp32 main grads.
  bool grad_reduce_bf16 = false;

  /// World size divided by tp * pp * cp; 0 when it does not divide (or a
  /// size is not positive). Computed in 64 bits: no key overflows it.
  int data_parallel(int world_size) const;
  /// Micro-batches per iteration per pipeline; 0 when it does not divide.
  int micro_batches(int world_size) const;
  /// tp * pp * cp, in 64 bits.
  int64_t model_parallel() const { return int64_t(tp) * pp * cp; }

  friend bool operator==(const training_config&, const training_config&) = default;
};

/// One configuration key: its canonical name, the field that holds its value
/// (exactly one of the three member pointers is set) and the name texts give
/// it. config_key_table() holds every key once, in canonical order, and all
/// that lists or walks the keys derives from it (parsing and printing, the
/// fingerprint, the space planner, history CSV columns, the reasoner's
/// texts): a new key is a field above and one row of that table.
struct config_key {
  std::string name;                                       ///< "tp", "recompute_method"
  int training_config::*int_field = nullptr;              ///< integer keys
  bool training_config::*bool_field = nullptr;            ///< true/false keys, recompute_method
  recompute_mode training_config::*mode_field = nullptr;  ///< recompute
  std::string display;  ///< OptiCo's name in texts: "GLOBAL_BATCH_SIZE", "TP"
  /// The values the key may take (booleans 0..1, recompute its modes).
  value_range range;

  /// The field as a number (false/true 0/1, a recompute mode its ordinal):
  /// for hot loops that must not go through text.
  int read(const training_config& c) const {
    return int_field ? c.*int_field : bool_field ? int(c.*bool_field) : int(c.*mode_field);
  }
  /// Sets the field from what read() returns.
  void write(training_config& c, int v) const {
    if (int_field)
      c.*int_field = v;
    else if (bool_field)
      c.*bool_field = v != 0;
    else
      c.*mode_field = static_cast<recompute_mode>(v);
  }
};

/// Every key, in canonical order.
const std::vector<config_key>& config_key_table();

/// The row of the key `name`, or nullptr for a name that is not a key.
const config_key* find_config_key(std::string_view name);

/// The canonical short keys, in canonical order.
const std::vector<std::string>& config_keys();

/// The value of one key as text ("4", "true", "selective").
std::string get_value(const training_config& c, const std::string& key);

/// Sets one key from text. Throws input_error naming the key for an unknown
/// key, a value of the wrong kind or one outside the key's range.
void set_value(training_config& c, const std::string& key,
               const std::string& value);

/// Parses "tp=2,pp=1,mbs=1" on top of `base`. Throws input_error.
training_config parse_config(const std::string& text,
                             training_config base = {});

/// Every key and value, canonical order: "tp=2,pp=1,cp=1,...".
std::string canonical_key(const training_config& c);

/// A compact binary key of every field: cheap to build, for hash maps in
/// hot loops. Equal configurations have equal fingerprints.
std::string fingerprint(const training_config& c);

/// As a key -> text map (for JSON and YAML output).
std::map<std::string, std::string> to_map(const training_config& c);

/// Short human text of what differs from `from` to `to`, e.g.
/// "recompute full->none, mbs 1->2"; "initial" when nothing differs.
std::string describe_change(const training_config& from,
                            const training_config& to);

} // namespace paratune
