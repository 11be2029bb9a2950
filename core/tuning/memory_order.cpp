#include "core/tuning/memory_order.hpp"

namespace paratune {

namespace {

/// False when the configuration has a saving the other lacks.
bool no_saving_beyond(bool mine, bool theirs) { return !mine || theirs; }

} // namespace

bool needs_at_least_as_much_memory(const training_config& c, const training_config& than) {
  if (c.mbs < than.mbs || c.seq < than.seq || c.gbs < than.gbs)
    return false;
  if (c.tp > than.tp || c.pp > than.pp || c.cp > than.cp || c.ep != than.ep)
    return false;
  // none < selective < full: a larger mode recomputes more and stores less.
  if (int(c.recompute) > int(than.recompute))
    return false;
  if (c.recompute == recompute_mode::full && than.recompute == recompute_mode::full
      && (c.recompute_block != than.recompute_block || c.recompute_layers != than.recompute_layers))
    return false;
  if (!no_saving_beyond(c.sp, than.sp) || !no_saving_beyond(c.dist_opt, than.dist_opt)
      || !no_saving_beyond(c.fused_ce, than.fused_ce)
      || !no_saving_beyond(c.grad_reduce_bf16, than.grad_reduce_bf16))
    return false;
  // A single stage holds every layer and builds no schedule: the pipeline's
  // own keys do not apply to it.
  if (c.pp > 1
      && (c.vpp != than.vpp || c.first_pp_layers != than.first_pp_layers
          || c.last_pp_layers != than.last_pp_layers
          || c.pp_account_embedding != than.pp_account_embedding
          || c.pp_account_loss != than.pp_account_loss))
    return false;
  return true;
}

} // namespace paratune
