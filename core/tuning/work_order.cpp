#include "core/tuning/work_order.hpp"

namespace paratune {

bool only_adds_work(const training_config& c, const training_config& than) {
  // `c` with each allowed extra undone must be `than` itself.
  training_config undone = c;
  if (int(c.recompute) > int(than.recompute)) {
    undone.recompute = than.recompute;
    undone.recompute_block = than.recompute_block;
    undone.recompute_layers = than.recompute_layers;
  }
  if (!c.overlap_grad && than.overlap_grad)
    undone.overlap_grad = true;
  if (!c.overlap_param && than.overlap_param)
    undone.overlap_param = true;
  if (!c.fused_ce && than.fused_ce)
    undone.fused_ce = true;
  return undone == than && !(c == than);
}

} // namespace paratune
