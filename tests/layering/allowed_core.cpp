// What core/diagnosis may use: itself, core/tpu, core/perf, core/retrieval, core.
#include "core/diagnosis/proposal_engine.hpp"
#include "core/perf/perf_model.hpp"
#include "core/retrieval/bm25.hpp"
#include "core/tpu/mesh_model.hpp"
#include "core/training_config.hpp"
