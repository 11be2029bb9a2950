#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "core/job_spec.hpp"

namespace paratune {

/// Reads a tuning job from YAML:
///
///   name: llama3-8b-a100x8
///   model: llama3-8b            # catalog name or a model YAML path
///   cluster: dgx-a100-80g       # catalog name or a cluster YAML path
///   nodes: 1
///   precision: fp16
///   initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}
///   search:                     # optional; the default space when absent
///     tp: [1, 2, 4, 8]
///   trials: 20
///   tokens: 15e12               # optional; the full run's budget
///   baseline: {tp: 4, pp: 2, mbs: 1, gbs: 512, seq: 8192, tflops_per_gpu: 180}  # optional
///   retry_transient_failures: false   # rerun after an NCCL timeout / lost node
///   simulation: {seed: 7, train_iters: 12, time_scale: 0.0002}
///
/// `model:` and `cluster:` also take the file's mapping inline. Relative file
/// paths (model, cluster, a pool's table and token_file) mean files in the
/// job file's folder, wherever paratune runs. A key given twice, at any
/// depth, is refused with both lines; a key no reader reads, at any depth,
/// with its line and the nearest known key ("job.yaml:7: unknown key
/// 'trails' (did you mean 'trials'?)").
///
/// Throws input_error naming the file and the field that is missing or
/// wrong, or saying that the search space holds no valid configuration.
job_spec load_job(const std::string& path);

/// A job's `early_stop:` mapping ({stable_after: 5, tolerance: 0.02, rung:
/// true, hang_s: 300, wall_s: 3600, warmup: 2}; every key optional, each
/// in its range). Throws input_error naming `path` and the key.
early_stop_policy read_early_stop(const YAML::Node& node, const std::string& path);

/// A job from its text (a job submitted to the daemon); `label` names it in
/// errors. It names no model or cluster file (paratune submit sends them
/// inline; a path is refused), and a pool's table or token file only by
/// absolute path: the daemon has no job folder to resolve them in.
job_spec load_job_text(const std::string& text, const std::string& label);

/// What a job file holds: a GPU tuning job, or a TPU mesh experiment (a
/// map with `mesh:` and `hardware:`), which ASAP's loop reads itself. The
/// one place that tells them apart.
enum class job_kind { gpu_tuning, tpu_experiment };

/// A job file read once: its kind and, for a GPU job, the job.
struct job_document {
  job_kind kind = job_kind::gpu_tuning;
  job_spec gpu;  ///< kind gpu_tuning only
};

/// load_job's reading of the file, or a TPU experiment named as such.
job_document read_job_document(const std::string& path);
/// load_job_text's reading of the text, or a TPU experiment named as such.
job_document read_job_document_text(const std::string& text, const std::string& label);
/// Whether the file at `path` is a TPU experiment; false for anything else,
/// a file that does not read included (load_job then says why).
bool is_tpu_experiment_file(const std::string& path);

/// The folder whose files a job file's relative paths name (absolute).
std::string job_folder(const std::string& path);

/// The job file's text (stored in the pool with the session).
std::string read_text_file(const std::string& path);

} // namespace paratune
