#pragma once

// The bodies carried on the bus and stored in the pool. Plain structs;
// MSGPACK_DEFINE_MAP encodes them keyed by field name, so a reader tolerates
// fields added by a newer writer.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <msgpack.hpp>

#include "messages/wire_enums.hpp"

namespace paratune::wire {

/// Schema version written in every envelope.
constexpr int schema_version = 1;

/// A training configuration as canonical key -> value text.
using config_map = std::map<std::string, std::string>;

/// A model's dimensions (core model_spec).
struct model_wire {
  std::string name, family, size;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0;
  bool swiglu = false, tied_embeddings = false, rmsnorm = true;
  int experts = 0, topk = 0, moe_ffn = 0, max_seq = 0;
  // Written since the catalog carries the built model's details; a record
  // without them (position_embedding "") takes the style defaults.
  int shared_expert_ffn = 0;
  std::string position_embedding;
  int rotary_base = 10000;
  double rope_scaling_factor = 0, norm_epsilon = 1e-5;
  bool bias_linear = true, qkv_bias = false, qk_layernorm = false;
  MSGPACK_DEFINE_MAP(name, family, size, layers, hidden, heads, kv_heads, head_dim, ffn, vocab,
                     swiglu, tied_embeddings, rmsnorm, experts, topk, moe_ffn, max_seq,
                     shared_expert_ffn, position_embedding, rotary_base, rope_scaling_factor,
                     norm_epsilon, bias_linear, qkv_bias, qk_layernorm)
};

/// A link class (core link_spec).
struct link_wire {
  std::string name;
  double gbps = 0, latency_us = 0;
  MSGPACK_DEFINE_MAP(name, gbps, latency_us)
};

/// A cluster (core cluster_spec).
struct cluster_wire {
  std::string name, device_name, ici_topology;
  double peak_tflops_16 = 0, peak_tflops_fp8 = 0, hbm_gib = 0, hbm_gbps = 0;
  bool tpu = false;
  int devices_per_node = 8, max_nodes = 0;
  link_wire scale_up, scale_out;
  MSGPACK_DEFINE_MAP(name, device_name, ici_topology, peak_tflops_16, peak_tflops_fp8, hbm_gib,
                     hbm_gbps, tpu, devices_per_node, max_nodes, scale_up, scale_out)
};

/// Opens a session: the job, resolved, so that the session can be resumed
/// and re-analysed from the pool alone.
/// The job's early-stopping policy (core/early_stop_policy.hpp); off when
/// `enabled` is false, and then every trial runs its command to the end.
struct early_stop_wire {
  bool enabled = false;
  int warmup = 2;
  int stable_after = 5;
  double tolerance = 0.02;
  bool rung = true;
  double hang_s = 300;
  double wall_s = 3600;
  MSGPACK_DEFINE_MAP(enabled, warmup, stable_after, tolerance, rung, hang_s, wall_s)
};

/// One measured run of a replay pool's table (core/measured_run.hpp).
struct measured_run_wire {
  config_map config;
  double iteration_ms = 0;
  double tflops_per_gpu = 0;
  double peak_memory_mib = 0;
  failure_kind failure = failure_kind::none;  ///< none: it ran
  int line = 0;                               ///< its line in the table
  MSGPACK_DEFINE_MAP(config, iteration_ms, tflops_per_gpu, peak_memory_mib, failure, line)
};

/// A pool trials may run on (core/pool_spec.hpp); what the generator needs
/// to place and launch a trial.
struct pool_wire {
  std::string name;
  pool_kind kind = pool_kind::simulated;
  int capacity = 1;
  std::vector<std::string> launch;  ///< launch-template tokens (local and slurm pools)
  int gpus_per_node = 0;
  std::string partition;            ///< slurm pools
  bool via_rest = false;            ///< slurmrestd, else sbatch and friends
  std::string url, token_env, token_file, user;
  std::string dcgm;                 ///< its dcgm-exporter's /metrics URL; empty: none
  double dcgm_period_s = 5;         ///< how often a running trial's GPUs are scraped
  bool relay = false;               ///< slurm: the output comes through paratune-relay
  std::string relay_path;           ///< the relay program the job runs
  std::string table;                ///< replay: the measured table's path
  /// replay: the table's runs for this job, stored with the session so that
  /// a resumed session answers from what it started with.
  std::vector<measured_run_wire> measured;
  std::map<std::string, std::string> env;  ///< the pool's `env:`, set in its trials' environment
  // slurm: how the batch script starts the command, and what the job asks
  // of the scheduler (core/pool_spec.hpp); absent in older records.
  slurm_tasks tasks = slurm_tasks::one;
  std::string account, qos, constraint, gres;
  bool exclusive = false;
  int time_limit_minutes = 0;
  /// local and slurm: where the pool's trial directories go (`workdir:`);
  /// empty (and in older records): under the session's own `workdir`.
  std::string workdir;
  MSGPACK_DEFINE_MAP(name, kind, capacity, launch, gpus_per_node, partition, via_rest, url,
                     token_env, token_file, user, dcgm, dcgm_period_s, relay, relay_path, table,
                     measured, env, tasks, account, qos, constraint, gres, exclusive,
                     time_limit_minutes, workdir)
};

/// The job's baseline configuration (`baseline:`); `given` false when the
/// job named none, as in records written before the field existed.
struct baseline_wire {
  bool given = false;
  config_map config;
  double tflops_per_gpu = 0;  ///< the team's measurement; 0 when not given
  MSGPACK_DEFINE_MAP(given, config, tflops_per_gpu)
};

/// One agent's reasoner (the job's `reasoner:`, or one of its `agents:`).
/// The API key is never here: only the name of the variable that holds it.
struct reasoner_wire {
  reasoner_mode mode = reasoner_mode::builtin;
  std::string base_url;
  std::string model;
  std::string api_key_env;
  double timeout_s = 60;
  int max_retries = 3;
  bool structured_output = true;
  MSGPACK_DEFINE_MAP(mode, base_url, model, api_key_env, timeout_s, max_retries, structured_output)
};

/// A per-agent override of the session's reasoner (`reasoner: {agents:}`).
struct agent_reasoner_wire {
  reasoning_agent agent = reasoning_agent::strategy_generation;
  reasoner_wire settings;
  MSGPACK_DEFINE_MAP(agent, settings)
};

struct session_opened {
  std::string job_name;
  model_wire model;
  cluster_wire cluster;
  int nodes = 1;
  int world_size = 0;
  std::string precision;
  config_map initial;
  std::map<std::string, std::vector<std::string>> search;
  int trials = 0;
  bool retry_transient = false;
  int train_iters = 12;
  uint64_t seed = 1;
  std::string sim_path;   ///< the paratune-sim executable trials run
  std::string sim_cluster; ///< the cluster as the simulator loads it (name or file)
  double sim_time_scale = 0.0002; ///< wall seconds per simulated second
  double sim_failure_rate = 0.03; ///< injected NCCL timeouts and node losses
  std::string job_yaml;   ///< the job file's text, for reproducibility
  early_stop_wire early_stop;
  std::vector<pool_wire> pools;  ///< empty: one simulated pool
  std::string workdir;           ///< trials' directories are made under it ({workdir})
  double tokens = 0;             ///< the full run's token budget; 0: not given
  /// The bus as bound for relay pools (empty otherwise): relays publish to
  /// relay_endpoint ({relay}), the validator's receivers subscribe at
  /// relay_subscribe. Both tcp://, valid while this process runs.
  std::string relay_endpoint;
  std::string relay_subscribe;
  baseline_wire baseline;        ///< the team's configuration to price against
  start_policy start = start_policy::initial; ///< what trial 1 runs (absent in older records)
  reasoner_wire reasoner;        ///< builtin unless the job (or the daemon) names a model
  std::vector<agent_reasoner_wire> agent_reasoners; ///< per-agent overrides of `reasoner`
  /// The prompt templates the session's model is asked with (llm:
  /// generation, hybrid: ranking; failure analysis), as they were when it opened.
  std::string generation_prompt;
  std::string ranking_prompt;
  std::string failure_prompt;
  /// Bottleneck analysis's (its model reads the health of the run moved from).
  std::string health_prompt;
  std::map<std::string, std::string> env;  ///< the job's `env:`, set in every trial's environment
  /// The names of the variables no trial sees and whose values are
  /// redacted from its output (core/secret_env.hpp): names, never values.
  std::vector<std::string> secret_env;
  /// The job's `stop:` (core/session_stop_policy.hpp). Budget when absent:
  /// a session stored before it resumes as it was opened.
  session_stop_mode stop = session_stop_mode::budget;
  double stop_min_gain = 0.01;
  double stop_confidence = 0.9;
  /// The framework its trials run (frameworks/framework.hpp's name): how
  /// their output is read and what their trainer needs. Megatron-LM in
  /// records stored before the field existed.
  std::string framework = "megatron-lm";
  MSGPACK_DEFINE_MAP(job_name, model, cluster, nodes, world_size, precision, initial, search,
                     trials, retry_transient, train_iters, seed, sim_path, sim_cluster, sim_time_scale,
                     sim_failure_rate, job_yaml, early_stop, pools, workdir, relay_endpoint,
                     relay_subscribe, tokens, baseline, start, reasoner, generation_prompt,
                     ranking_prompt, agent_reasoners, failure_prompt, env, secret_env, stop,
                     stop_min_gain, stop_confidence, health_prompt, framework)
};

/// One ranked candidate of an analysis.
struct suggestion_wire {
  config_map config;
  std::string text;
  candidate_group group = candidate_group::standard;
  std::string why;
  double predicted_tflops = 0;
  double predicted_peak_mib = 0;
  std::string rejected;   ///< empty when it passed every guard
  /// The chance its true peak exceeds the device (the memory screen's);
  /// 0 in records older than it. `ask` states it when it names the candidate.
  double oom_risk = 0;
  MSGPACK_DEFINE_MAP(config, text, group, why, predicted_tflops, predicted_peak_mib, rejected,
                     oom_risk)
};

/// The Bottleneck Analysis agent's report: health, ranked suggestions and
/// the rejected ones with the guard that rejected them.
struct analysis_report {
  int after_trial = 0;
  std::string health;
  std::string directive;
  int base_trial = 0;     ///< 1-based, 0 when moving from the initial configuration
  std::vector<suggestion_wire> ranked;
  std::vector<suggestion_wire> rejected;
  bool exhausted = false;
  std::string reasoning;
  std::string error;      ///< non-empty when the session could not be analysed
  int request = 0;        ///< the analysis_request it answers
  int slots = 1;          ///< how many trials that request asked for
  /// The stop decision (core/tuning/session_stop.hpp): the session has
  /// converged, and why in words (also why it goes on, when it does).
  bool converged = false;
  std::string stop_reason;
  MSGPACK_DEFINE_MAP(after_trial, health, directive, base_trial, ranked, rejected, exhausted,
                     reasoning, error, request, slots, converged, stop_reason)
};

/// The coordinator asks for the next `slots` trials, with `after_trial`
/// results in. Requests are numbered from 1; a repeated request (the first
/// went unanswered) keeps its number, so it never launches trials twice.
struct analysis_request {
  int after_trial = 0;
  int request = 0;
  int slots = 1;
  MSGPACK_DEFINE_MAP(after_trial, request, slots)
};

/// Bottleneck analysis and strategy generation: the next configuration to
/// run, or none when the space is exhausted.
struct proposal {
  int trial = 0;                 ///< the trial number it is for (1-based)
  bool exhausted = false;        ///< nothing new and valid remains
  config_map config;
  std::string change;            ///< "Change AC from full to none."
  candidate_group group = candidate_group::standard;
  std::string health;            ///< health state
  std::string why;
  double predicted_tflops = 0;
  double predicted_peak_mib = 0;
  std::string reasoning;         ///< the full chain, in words
  std::vector<std::string> ranked; ///< the ranked suggestions, as text
  std::vector<std::string> argv;   ///< the launch command (simulator and Megatron-LM arguments)
  std::string pool;                ///< the pool it runs on
  std::string workdir;             ///< its own directory, made before launch; empty: none
  int request = 0;                 ///< the analysis_request it answers
  int retry_of = 0;                ///< the failed trial it runs again, 0 for a new configuration
  /// Set when nothing can run because every pool is paused (its trials kept
  /// failing to start): why, pool by pool. The session ends with it.
  std::string no_pool;
  /// Set when no candidate left is likely to pay (the analysis converged):
  /// nothing more is launched, the running trials are ended, the session
  /// ends `converged` with `stop_reason` as its text.
  bool converged = false;
  std::string stop_reason;
  MSGPACK_DEFINE_MAP(trial, exhausted, config, change, group, health, why,
                     predicted_tflops, predicted_peak_mib, reasoning, ranked, argv, pool, workdir,
                     request, retry_of, no_pool, converged, stop_reason)
};

/// The validator launched a trial.
struct trial_started {
  int trial = 0;
  config_map config;
  std::vector<std::string> argv;
  std::string pool;
  MSGPACK_DEFINE_MAP(trial, config, argv, pool)
};

/// Where a launched trial runs, stored once it was started: what a daemon
/// that restarts needs to find it again (a Slurm job to re-attach, a local
/// process group to end).
struct trial_job {
  int trial = 0;
  int64_t pid = 0;                 ///< a local or simulated trial's process (its group's id)
  std::string argv0;               ///< the program that pid runs, checked before it is ended
  int64_t slurm_job_id = 0;        ///< a Slurm pool's batch job
  std::string output_path;         ///< the job's output file ("%j" filled in)
  /// The job's nodes, once Slurm runs it (a second record, published on the
  /// trial's state topic): where the telemetry agent scrapes a `{host}`
  /// dcgm-exporter URL. Empty until then, and for local trials.
  std::vector<std::string> hosts;
  MSGPACK_DEFINE_MAP(trial, pid, argv0, slurm_job_id, output_path, hosts)
};

/// A trial whose run was lost with the process that watched it (a daemon
/// killed or stopped while a local trial ran): the trial runs again under
/// the same number, so nothing is duplicated and nothing is skipped.
struct trial_interrupted {
  int trial = 0;
  std::string reason;
  MSGPACK_DEFINE_MAP(trial, reason)
};

/// One message of a conversation with a model.
struct chat_message_wire {
  std::string role;
  std::string content;
  MSGPACK_DEFINE_MAP(role, content)
};

/// One exchange with a session's language model (stored on llm.<sid>, the
/// papers' Sharding Memory): what was asked, what came back, what it cost,
/// and what the guardrails said. Never the API key.
struct llm_exchange {
  int after_trial = 0;             ///< the analysis it belongs to
  int request = 0;                 ///< that analysis's request number
  reasoning_agent agent = reasoning_agent::strategy_generation;
  reasoner_mode mode = reasoner_mode::llm;
  int ask = 1;                     ///< 1, or 2 after a refusal
  std::vector<chat_message_wire> messages;
  std::string answer;              ///< the model's text; empty when none came
  std::string error;               ///< why none came
  double latency_ms = 0;
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int attempts = 0;                ///< HTTP attempts, retries included
  std::string rejection;           ///< the guardrail's word (guardrail_rejection); empty: not refused
  std::string detail;              ///< the refusal in words
  bool chosen = false;             ///< the answer decided the next trial
  MSGPACK_DEFINE_MAP(after_trial, request, agent, mode, ask, messages, answer, error, latency_ms,
                     prompt_tokens, completion_tokens, attempts, rejection, detail, chosen)
};

/// One question and its answer in a dialogue about a session (`paratune
/// ask`): turns of one thread share its number, so a follow-up ("are you
/// sure?") is read with what came before.
struct dialogue_turn {
  int thread = 1;
  int turn = 1;
  std::string question;
  std::string answer;
  question_topic topic = question_topic::overview;  ///< what the question was read as
  std::map<std::string, std::string> keep;  ///< what-if: the values the user holds fixed
  int trial = 0;                   ///< the trial it is about, 0 for none
  bool by_model = false;           ///< the model answered (else the built-in reasoner)
  std::string model;               ///< which, when it did
  std::string fallback;            ///< why the built-in reasoner answered a session with a model
  MSGPACK_DEFINE_MAP(thread, turn, question, answer, topic, keep, trial, by_model, model, fallback)
};

/// One logged iteration of a running trial.
struct telemetry {
  int trial = 0;
  int64_t iteration = 0;
  double elapsed_ms = 0;
  double tflops_per_gpu = 0;
  MSGPACK_DEFINE_MAP(trial, iteration, elapsed_ms, tflops_per_gpu)
};

/// A running trial's output lines, in batches (published, not stored): the
/// telemetry agent reads them with its own Megatron-LM parser.
struct trial_output {
  int trial = 0;
  int64_t first_line_no = 1;       ///< 1-based number of lines[0] in the trial's output
  std::vector<std::string> lines;
  MSGPACK_DEFINE_MAP(trial, first_line_no, lines)
};

/// One reading of a metric series: when (Unix time, ms) and what.
struct metric_point {
  int64_t t_ms = 0;
  double value = 0;
  MSGPACK_DEFINE_MAP(t_ms, value)
};

/// A trial's readings of one metric, in time order: from its Megatron-LM
/// lines, or from one of its GPUs' dcgm-exporter. A long trial's series
/// may come in several records, each continuing the last.
struct metric_series {
  int trial = 0;
  trial_metric metric = trial_metric::tflops_per_gpu;
  std::string unit;                ///< unit_of(metric), for people reading the pool
  int gpu = -1;                    ///< the GPU index of a dcgm series; -1 for the trial's log
  std::vector<metric_point> points;
  MSGPACK_DEFINE_MAP(trial, metric, unit, gpu, points)
};

/// A finished trial: its metrics, or why it failed.
/// How a trial's lines came through paratune-relay (relay pools only):
/// gaps on the bus and the lines recovered from the relay's buffer or its
/// log file.
struct relay_counts_wire {
  bool used = false;
  uint64_t lines = 0;       ///< delivered to the parser, in order, once each
  uint64_t gaps = 0;        ///< missing ranges fetched again
  uint64_t from_relay = 0;  ///< lines recovered from the relay's buffer
  uint64_t from_log = 0;    ///< ... and from its log file
  uint64_t lost = 0;        ///< lines found nowhere
  uint64_t bad = 0;         ///< messages that did not decode
  MSGPACK_DEFINE_MAP(used, lines, gaps, from_relay, from_log, lost, bad)
};

struct trial_result {
  int trial = 0;
  config_map config;
  trial_status status = trial_status::failed;
  double tflops_per_gpu = 0;
  double mfu = 0;
  double iteration_ms = 0;
  double peak_memory_mib = 0;
  double memory_limit_mib = 0;
  double gpu_util_pct = 0;
  int iterations_scored = 0;
  int iterations_logged = 0;     ///< iterations the log printed, warm-up and a failed run's included
  int exit_code = 0;
  failure_kind error_kind = failure_kind::none; ///< how the log parser classified the first error
  std::string error_message;
  std::string reason;            ///< why skipped or stopped, or the first error line
  std::vector<std::string> log_tail;
  stop_reason stop = stop_reason::none; ///< why the early stopper ended it
  int64_t started_at_ms = 0;     ///< Unix time the command started, ms
  int64_t ended_at_ms = 0;       ///< Unix time its result was known, ms
  /// Device-hours its logged iterations took: their times x the devices
  /// (what a trial costs; start-up before the first iteration not counted).
  double gpu_hours = 0;
  std::string pool;              ///< the pool it ran on
  int64_t queued_ms = 0;         ///< how long its pool's scheduler held it before it ran
  int retry_of = 0;              ///< the failed trial it ran again, 0 for none
  relay_counts_wire relay;       ///< a relay pool's trial: how its lines arrived
  MSGPACK_DEFINE_MAP(trial, config, status, tflops_per_gpu, mfu, iteration_ms,
                     peak_memory_mib, memory_limit_mib, gpu_util_pct,
                     iterations_scored, exit_code, error_kind, error_message,
                     reason, log_tail, stop, started_at_ms, ended_at_ms, gpu_hours, pool,
                     queued_ms, retry_of, relay, iterations_logged)
};

/// The failure analyst's diagnosis of a failed trial.
struct failure_diagnosis {
  int trial = 0;
  failure_kind kind = failure_kind::other;
  std::vector<std::string> blamed; ///< canonical keys, empty when not parameter-related
  int confidence = 0;
  bool retry = false;
  std::string summary;           ///< "MBS 4 caused CUDA OutOfMemoryError (Confidence: 92)"
  MSGPACK_DEFINE_MAP(trial, kind, blamed, confidence, retry, summary)
};

/// Session progress and its end.
struct session_status {
  session_state state = session_state::running;
  int trials_done = 0;
  int best_trial = 0;
  double best_tflops = 0;
  std::string text;              ///< why it ended, in words (the error when failed)
  MSGPACK_DEFINE_MAP(state, trials_done, best_trial, best_tflops, text)
};

// -- diagnosis (Analyzer and Proposal agents) --------------------------------

/// A past optimization in the pool's history ledger (session "optimizations").
struct optimization_record {
  std::string id, title, platform, model, hardware, bottleneck, before, after, impact, source;
  double params_billion = 0;
  int devices = 0;
  double speedup = 1;
  MSGPACK_DEFINE_MAP(id, title, platform, model, hardware, bottleneck, before, after, impact,
                     source, params_billion, devices, speedup)
};

/// Asks the Analyzer to diagnose a job: the experiment file's text and
/// where its profiles are (paths or an xprof server URL).
struct diagnose_request {
  std::string experiment_yaml;
  std::string experiment_name;   ///< the file name, for messages
  std::string xprof, kineto, megatron_log;
  double timeout_s = 60;         ///< how long a profile server may take
  /// The model behind the Analyzer and the Proposal agent (`diagnose
  /// --reasoner`, reasoning_agent::diagnosis): builtin when absent. The
  /// key's variable name only, never the key.
  reasoner_wire reasoner;
  /// The prompt templates they ask it with (configs/prompts/), as they were
  /// when the request was made; empty under builtin.
  std::string analyzer_prompt;
  std::string proposal_prompt;
  MSGPACK_DEFINE_MAP(experiment_yaml, experiment_name, xprof, kineto, megatron_log, timeout_s,
                     reasoner, analyzer_prompt, proposal_prompt)
};

struct kpi_check_wire {
  std::string name, unit, status, note;
  double value = 0;
  MSGPACK_DEFINE_MAP(name, unit, status, note, value)
};

struct top_op_wire {
  std::string name, category, bound_by, resource, why;
  double time_share = 0, flops_utilization = -1, hbm_bw_utilization = -1,
         roofline_efficiency = -1;
  MSGPACK_DEFINE_MAP(name, category, bound_by, resource, why, time_share, flops_utilization,
                     hbm_bw_utilization, roofline_efficiency)
};

/// The Analyzer's report (core diagnosis_report), or why it could not make one.
struct diagnosis {
  std::string platform, bottleneck, secondary, summary;
  double confidence = 0;
  double measured_step_ms = 0;
  std::vector<kpi_check_wire> kpis;
  std::vector<top_op_wire> top_ops;
  std::map<std::string, double> time_by_class, scores, collective_ms;
  std::vector<std::string> evidence, sources, warnings;
  bool partial = false;
  std::string error;             ///< non-empty when nothing could be diagnosed
  bool bad_input = false;        ///< the error is the request's (a file, a flag, a profile)
  MSGPACK_DEFINE_MAP(platform, bottleneck, secondary, summary, confidence, measured_step_ms,
                     kpis, top_ops, time_by_class, scores, evidence, sources, warnings, partial,
                     error, collective_ms, bad_input)
};

struct citation_wire {
  std::string kind, id, title, excerpt;
  double score = 0;
  MSGPACK_DEFINE_MAP(kind, id, title, excerpt, score)
};

struct proposal_wire {
  int rank = 0;
  std::string title, mesh, change, rationale, metric;
  config_map config;
  std::vector<std::string> tradeoffs;
  double step_ms_before = 0, step_ms_after = 0, speedup = 1, mfu_after = 0,
         memory_gib_after = 0, memory_limit_gib = 0, metric_before = 0, metric_after = 0;
  double confidence = 0;
  bool targeted = true;
  bool exploratory = false;
  std::vector<citation_wire> citations;
  MSGPACK_DEFINE_MAP(rank, title, mesh, change, rationale, metric, config, tradeoffs,
                     step_ms_before, step_ms_after, speedup, mfu_after, memory_gib_after,
                     memory_limit_gib, metric_before, metric_after, confidence, targeted,
                     exploratory, citations)
};

/// The Proposal agent's three ranked proposals for one diagnosis.
struct proposal_set {
  std::string bottleneck, baseline;
  double model_step_ms = 0, measured_step_ms = 0;
  std::vector<proposal_wire> proposals;
  std::vector<std::string> notes;
  MSGPACK_DEFINE_MAP(bottleneck, baseline, model_step_ms, measured_step_ms, proposals, notes)
};

/// A mesh a TPU run's diagnosis proposed (core/diagnosis/next_mesh_trial's mesh_step).
struct mesh_proposal_wire {
  std::string mesh;
  std::string title;
  bool exploratory = false;
  MSGPACK_DEFINE_MAP(mesh, title, exploratory)
};

/// One run of a TPU session (ASAP's loop on a slice) as its report shows it.
struct tpu_trial_row {
  int trial = 0;
  std::string mesh;              ///< "replica=1,data=4,model=4,seq=1"
  double step_time_ms = 0;       ///< 0 when the run failed
  std::string error;             ///< why the run failed (out of memory, a mesh MaxText refuses)
  std::string bottleneck;        ///< the run's diagnosis
  std::string next;              ///< the proposal chosen after it
  std::string pool;              ///< where it ran (absent in older records)
  /// Why it was ended before its last step (it could no longer beat the
  /// best run); its step time is what it measured until then.
  std::string stopped;
  int retry_of = 0;              ///< the failed trial it ran again; 0: a new mesh
  int64_t started_ms = 0;        ///< wall clock, ms since the epoch; 0 in older records
  int64_t ended_ms = 0;          ///< when its run (and diagnosis) ended
  /// Its mesh has the job's own sizes (the team's starting point, what a
  /// speedup is measured against); false in older records.
  bool job_mesh = false;
  /// It never reached its trainer (the launcher or scheduler could not
  /// start it): three in a row pause its pool.
  bool launch_failed = false;
  /// It failed for a reason outside its mesh (a lost host): it is due a
  /// run again, after a daemon's restart too.
  bool transient = false;
  /// Its measured step in model FLOPs: MaxText's MFU (core/tpu's
  /// measured_mesh_mfu), as a GPU trial's; 0 when it measured none.
  double mfu = 0;
  /// Chip-hours its logged steps took: their times x the slice's chips
  /// (start-up before the first step not counted), as a GPU trial's GPU-hours.
  double chip_hours = 0;
  /// Its run ended measured and its diagnosis is awaited (ended_ms 0 until
  /// the diagnosis and its proposals are in).
  bool diagnosing = false;
  /// What its diagnosis proposed, in rank order: where the search moves
  /// from this run (next_mesh_trial).
  std::vector<mesh_proposal_wire> proposed;
  /// What its profile said of the mesh model's error (fit_mesh_calibration);
  /// `calibrated` false: nothing (a failed run, or a profile without compute time).
  bool calibrated = false;
  double compute_scale = 1, hbm_scale = 1, comm_scale = 1;
  MSGPACK_DEFINE_MAP(trial, mesh, step_time_ms, error, bottleneck, next, pool, stopped, retry_of,
                     started_ms, ended_ms, job_mesh, launch_failed, transient, mfu, chip_hours,
                     diagnosing, proposed, calibrated, compute_scale, hbm_scale, comm_scale)
};

/// How a TPU session ended, stored under the session's own id as its last
/// record: every run, and the fastest (0: none was measured). `tune` and
/// `report` read it from the pool.
struct tpu_session_end {
  session_state state = session_state::finished;
  std::vector<tpu_trial_row> trials;
  int best_trial = 0;
  std::string text;              ///< why it ended, when a client cancelled it
  /// The job's own mesh, as tpu_session_opened has it; empty in records
  /// older than it (a speedup is then over the first measured run).
  std::string job_mesh;
  /// Why the job's own mesh was not expected to run (the opened record's
  /// job_mesh_verdict, which the ledger copies here); empty when it was.
  std::string job_mesh_verdict;
  MSGPACK_DEFINE_MAP(state, trials, best_trial, text, job_mesh, job_mesh_verdict)
};

/// A TPU session's first record, stored before it starts: what it runs,
/// so that a daemon that restarts runs it on (actors/tpu_session.hpp's
/// options). Each trial is then a proposal the validator runs, as a GPU
/// trial is (trial_started, trial_job, trial_result), and the session
/// stores its tpu_trial_row when it is proposed (ended_ms 0), when its run
/// was measured (diagnosing) and when it ends.
struct tpu_session_opened {
  std::string experiment_name;
  std::string experiment_file;   ///< what a simulated pool's trainer reads
  std::string experiment_yaml;   ///< the experiment, as it was submitted
  std::string model;             ///< for listings
  std::string hardware;          ///< "tpu-v6e 4x4"
  int budget = 8;
  uint64_t seed = 1;
  int steps = 6;
  double time_scale = 0;
  double failure_rate = 0;
  std::vector<pool_wire> pools;  ///< empty: one simulated pool
  early_stop_wire early_stop;    ///< `enabled` false: every run to its end
  std::string simulator;         ///< paratune-tpu-sim, for simulated pools
  std::string runs_dir;          ///< MaxText's base_output_directory for simulated and local pools
  std::string job_mesh;          ///< the experiment's own mesh, "data=4,model=4"; empty in older records
  /// core/diagnosis's job_mesh_verdict at the start: why the job's mesh is
  /// predicted not to run ("predicted not to fit: ..."); empty when it fits.
  std::string job_mesh_verdict;
  /// The Analyzer's and the Proposal agent's model (builtin when absent),
  /// and the prompt templates they ask it with, as they were at the start.
  reasoner_wire reasoner;
  std::string analyzer_prompt;
  std::string proposal_prompt;
  std::map<std::string, std::string> env;  ///< the experiment's `env:`, in every run's environment
  /// The names of the variables no run sees and whose values are redacted
  /// from its output: names, never values.
  std::vector<std::string> secret_env;
  /// The slice's chips and their cluster: what the trial runner counts
  /// device-hours and MaxText's own MFU with (0 and empty in older records).
  int chips = 0;
  cluster_wire cluster;
  MSGPACK_DEFINE_MAP(experiment_name, experiment_file, experiment_yaml, model, hardware, budget,
                     seed, steps, time_scale, failure_rate, pools, early_stop, simulator,
                     runs_dir, reasoner, analyzer_prompt, proposal_prompt, job_mesh, env,
                     secret_env, chips, cluster, job_mesh_verdict)
};

/// What travels in frame 2 of a bus message and is stored in the pool.
struct envelope {
  int v = schema_version;
  std::string type;              ///< one of the type names below
  std::string session;
  int trial = 0;
  uint64_t seq = 0;              ///< pool sequence number, 0 before storing
  int64_t ts_ms = 0;             ///< wall-clock milliseconds since the epoch
  std::string body;              ///< msgpack of the typed body
  /// The sequence number of the same session's record stored just before
  /// this one (0: the session's first), set by the pool with `seq`. A
  /// reader that follows a session's records on the bus (ledger's
  /// follow()) knows from it that it missed none. Records stored before it
  /// existed read as 0.
  uint64_t prev_seq = 0;
  MSGPACK_DEFINE_MAP(v, type, session, trial, seq, ts_ms, body, prev_seq)
};

/// Type names, one per body struct.
template <class T> constexpr const char* type_name();
template <> constexpr const char* type_name<session_opened>() { return "session_opened"; }
template <> constexpr const char* type_name<analysis_request>() { return "analysis_request"; }
template <> constexpr const char* type_name<analysis_report>() { return "analysis_report"; }
template <> constexpr const char* type_name<proposal>() { return "proposal"; }
template <> constexpr const char* type_name<trial_started>() { return "trial_started"; }
template <> constexpr const char* type_name<trial_job>() { return "trial_job"; }
template <> constexpr const char* type_name<trial_interrupted>() { return "trial_interrupted"; }
template <> constexpr const char* type_name<telemetry>() { return "telemetry"; }
template <> constexpr const char* type_name<trial_output>() { return "trial_output"; }
template <> constexpr const char* type_name<metric_series>() { return "metric_series"; }
template <> constexpr const char* type_name<trial_result>() { return "trial_result"; }
template <> constexpr const char* type_name<failure_diagnosis>() { return "failure_diagnosis"; }
template <> constexpr const char* type_name<session_status>() { return "session_status"; }
template <> constexpr const char* type_name<tpu_session_end>() { return "tpu_session_end"; }
template <> constexpr const char* type_name<tpu_session_opened>() { return "tpu_session_opened"; }
template <> constexpr const char* type_name<tpu_trial_row>() { return "tpu_trial"; }
template <> constexpr const char* type_name<optimization_record>() { return "optimization_record"; }
template <> constexpr const char* type_name<diagnose_request>() { return "diagnose_request"; }
template <> constexpr const char* type_name<diagnosis>() { return "diagnosis"; }
template <> constexpr const char* type_name<proposal_set>() { return "proposal_set"; }
template <> constexpr const char* type_name<llm_exchange>() { return "llm_exchange"; }
template <> constexpr const char* type_name<dialogue_turn>() { return "dialogue_turn"; }

} // namespace paratune::wire

/// Every body type, for code that has to name each one (the codec's
/// explicit instantiations in codec.hpp and codec_instances.cpp).
#define PARATUNE_WIRE_BODIES(X) \
  X(session_opened) \
  X(analysis_request) \
  X(analysis_report) \
  X(proposal) \
  X(trial_started) \
  X(trial_job) \
  X(trial_interrupted) \
  X(telemetry) \
  X(trial_output) \
  X(metric_series) \
  X(trial_result) \
  X(failure_diagnosis) \
  X(session_status) \
  X(optimization_record) \
  X(diagnose_request) \
  X(diagnosis) \
  X(proposal_set) \
  X(llm_exchange) \
  X(dialogue_turn) \
  X(tpu_session_end) \
  X(tpu_session_opened) \
  X(tpu_trial_row)
