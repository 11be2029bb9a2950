#include "tools/paratune/tpu_tune.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "actors/bus_bridge.hpp"
#include "actors/diagnosis_agents.hpp"
#include "actors/runtime.hpp"
#include "adapters/config/catalog.hpp"
#include "adapters/config/executable_paths.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/input_error.hpp"
#include "messages/codec.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "messages/diagnosis_topics.hpp"
#include "messages/ec.hpp"
#include "messages/type_ids.hpp"

namespace paratune::cli {

namespace {

namespace fs = std::filesystem;

struct trial {
  int index = 0;
  tpu_mesh mesh;
  double step_ms = 0;       ///< 0 when the run failed
  std::string error;
  std::string bottleneck;
  std::string next;         ///< the proposal chosen after it
};

std::string tpu_sim_executable() {
  return sibling_executable("paratune-tpu-sim", "PARATUNE_TPU_SIM");
}

// The experiment text with the trial's mesh in place of the file's.
std::string with_mesh(const std::string& yaml, const tpu_mesh& mesh) {
  YAML::Node root = YAML::Load(yaml);
  root["mesh"] = to_string(mesh);
  return YAML::Dump(root);
}

// Runs paratune-tpu-sim; its one JSON line says how the run went.
nlohmann::json run_simulator(const tpu_tune_options& o, const tpu_mesh& mesh,
                             const std::string& out) {
  const std::string cmd = "'" + tpu_sim_executable() + "' run --experiment '" + o.experiment_file
                          + "' --mesh '" + to_string(mesh) + "' --out '" + out + "' --seed "
                          + std::to_string(o.seed) + " 2>/dev/null";
  std::string text;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p))
      text += buf;
    pclose(p);
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return {{"ok", false}, {"error", "paratune-tpu-sim did not answer: " + text}};
  }
}

class coordinator {
public:
  coordinator(caf::actor_system& sys, runtime& rt, std::string session)
      : sys_(sys), rt_(rt), self_(sys), session_(std::move(session)) {
    auto me = caf::actor_cast<caf::actor>(self_);
    rt_.bridge().subscribe(topics::diagnosis(session_), me);
    rt_.bridge().subscribe(topics::proposals(session_), me);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // subscriptions reach the proxy
  }

  /// Stores and publishes the request, then waits for the proposal set (or
  /// a diagnosis that carries an error).
  std::optional<std::pair<wire::diagnosis, wire::proposal_set>>
  diagnose(const std::string& trial_session, wire::diagnose_request req) {
    auto e = wire::make_envelope(trial_session, 0, req);
    bool stored = false;
    self_->request(rt_.deps().pool, std::chrono::seconds(30), append_atom_v, e)
      .receive([&](uint64_t) { stored = true; }, [](caf::error&) {});
    if (!stored)
      return std::nullopt;
    self_->send(rt_.deps().egress, publish_atom_v, topics::diagnose(trial_session),
                wire::pack(e));
    std::optional<wire::diagnosis> d;
    std::optional<wire::proposal_set> p;
    bool timed_out = false;
    while (!p && !timed_out && !(d && !d->error.empty()))
      self_->receive(
        [&](bus_atom, const std::string&, const std::string& payload) {
          auto env = wire::decode_envelope(payload);
          if (env.session != trial_session)
            return;
          if (env.type == wire::type_name<wire::diagnosis>())
            d = wire::body_of<wire::diagnosis>(env);
          else if (env.type == wire::type_name<wire::proposal_set>())
            p = wire::body_of<wire::proposal_set>(env);
        },
        caf::after(std::chrono::seconds(120)) >> [&] { timed_out = true; });
    if (!d)
      return std::nullopt;
    return std::make_pair(*d, p.value_or(wire::proposal_set{}));
  }

  void record_improvement(const experiment_spec& exp, const trial& from, const trial& to,
                          const std::string& bottleneck) {
    wire::optimization_record r;
    r.id = session_ + "-t" + std::to_string(to.index);
    r.title = "Tuning session " + session_ + ": " + describe_mesh_change(from.mesh, to.mesh);
    r.platform = "tpu";
    r.model = exp.model.name;
    r.params_billion = exp.model.parameters() / 1e9;
    r.hardware = exp.cluster.name;
    r.devices = exp.slice.chips();
    r.bottleneck = bottleneck;
    r.before = to_string(from.mesh);
    r.after = to_string(to.mesh);
    r.speedup = from.step_ms / to.step_ms;
    char buf[128];
    std::snprintf(buf, sizeof buf, "step %.1f -> %.1f ms (simulated)", from.step_ms, to.step_ms);
    r.impact = buf;
    r.source = "paratune tune, session " + session_;
    auto e = wire::make_envelope(wire::optimization_ledger, 0, r);
    self_->request(rt_.deps().pool, std::chrono::seconds(30), append_atom_v, e)
      .receive([](uint64_t) {}, [](caf::error& err) {
        spdlog::warn("tune: history not recorded: {}", describe(err));
      });
  }

private:
  caf::actor_system& sys_;
  runtime& rt_;
  caf::scoped_actor self_;
  std::string session_;
};

std::optional<tpu_mesh> next_mesh(const wire::proposal_set& set, const std::set<std::string>& tried,
                                  std::string& title) {
  for (const auto& p : set.proposals) {
    if (p.mesh.empty())
      continue;
    auto m = parse_mesh(p.mesh);
    if (!tried.count(to_string(m))) {
      title = p.title;
      return m;
    }
  }
  return std::nullopt;
}

void print_trial(const trial& t, double best_ms) {
  std::printf("trial %2d  %-34s ", t.index, to_string(t.mesh).c_str());
  if (!t.error.empty())
    std::printf("failed: %s\n", t.error.substr(0, 90).c_str());
  else
    std::printf("%10.1f ms  %-15s%s\n", t.step_ms, t.bottleneck.c_str(),
                t.step_ms <= best_ms ? "  best so far" : "");
  if (!t.next.empty())
    std::printf("          next: %s\n", t.next.c_str());
}

nlohmann::json to_json(const std::string& session, const std::vector<trial>& trials,
                       const trial* best) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& t : trials)
    rows.push_back({{"trial", t.index}, {"mesh", to_string(t.mesh)}, {"step_time_ms", t.step_ms},
                    {"error", t.error}, {"bottleneck", t.bottleneck}, {"next", t.next}});
  nlohmann::json j = {{"session", session}, {"trials", rows}};
  if (best)
    j["best"] = {{"trial", best->index}, {"mesh", to_string(best->mesh)},
                 {"step_time_ms", best->step_ms},
                 {"speedup", trials.front().step_ms > 0 ? trials.front().step_ms / best->step_ms : 0}};
  return j;
}

} // namespace

bool is_tpu_experiment(const std::string& path) {
  try {
    const auto root = YAML::LoadFile(path);
    return root.IsMap() && root["mesh"] && root["hardware"];
  } catch (const YAML::Exception&) {
    return false;
  }
}

int run_tpu_tune(const tpu_tune_options& o) {
  const auto exp = load_experiment(o.experiment_file);  // bad input: exit 2
  const auto text = read_text_file(o.experiment_file);
  const int budget = o.trials > 0 ? o.trials : YAML::Load(text)["trials"].as<int>(8);
  spdlog::set_level(spdlog::level::warn);
  caf::actor_system_config cfg;
  cfg.add_message_types<caf::id_block::paratune>();
  caf::actor_system sys{cfg};
  auto rt = runtime::start(sys, {o.db, {}, true, false});
  if (!rt) {
    std::cerr << "error: " << describe(rt.error()) << '\n';
    return 1;
  }
  diagnosis_agent_options ao{o.db + ".knowledge", configs_dir() + "/knowledge",
                             configs_dir() + "/optimizations"};
  if (auto started = start_diagnosis_agents(sys, **rt, ao); !started) {
    std::cerr << "error: " << describe(started.error()) << '\n';
    return 1;
  }
  const auto session = new_session_id();
  const auto runs_dir = fs::path(o.db + ".runs") / session;
  if (!o.json)
    std::printf("session %s: %s on %s %s, %d trials, pool %s\n", session.c_str(),
                exp.model.name.c_str(), exp.cluster.name.c_str(), to_string(exp.slice).c_str(),
                budget, o.db.c_str());
  std::vector<trial> trials;
  std::set<std::string> tried;
  {
    coordinator c(sys, **rt, session);
    std::optional<tpu_mesh> mesh = exp.mesh;
    std::vector<wire::proposal_set> sets;  // per trial, empty when not diagnosed
    wire::proposal_set last_set;
    int best = -1;  // index into trials
    for (int i = 1; i <= budget && mesh; ++i) {
      trial t;
      t.index = i;
      t.mesh = *mesh;
      tried.insert(to_string(*mesh));
      const auto out = (runs_dir / ("t" + std::to_string(i))).string();
      const auto run = run_simulator(o, *mesh, out);
      wire::proposal_set set;
      if (run.value("ok", false)) {
        t.step_ms = run.value("step_time_ms", 0.0);
        wire::diagnose_request req{with_mesh(text, *mesh), o.experiment_file, out, "", ""};
        if (auto r = c.diagnose(session + ".t" + std::to_string(i), req)) {
          t.bottleneck = r->first.error.empty() ? r->first.bottleneck : "error: " + r->first.error;
          set = r->second;
          if (!set.proposals.empty())
            last_set = set;
        }
      } else {
        t.error = run.value("error", std::string("the run failed"));
      }
      trials.push_back(t);
      sets.push_back(set);
      const int now = int(trials.size()) - 1;
      if (t.error.empty() && (best < 0 || t.step_ms < trials[best].step_ms)) {
        if (best >= 0)
          c.record_improvement(exp, trials[best], t, t.bottleneck);
        best = now;
      }
      // Move from the best run so far, as its diagnosis proposes; when all
      // of those were run, from the latest diagnosis.
      mesh = best >= 0 ? next_mesh(sets[best], tried, trials[now].next) : std::nullopt;
      if (!mesh)
        mesh = next_mesh(last_set, tried, trials[now].next);
      if (!o.json)
        print_trial(trials[now], best >= 0 ? trials[best].step_ms : 0);
    }
    if (!mesh && int(trials.size()) < budget && !o.json)
      std::printf("stopped after %zu trials: every proposal of the diagnosed runs was tried\n",
                  trials.size());
    const trial* winner = best >= 0 ? &trials[best] : nullptr;
    if (o.json)
      std::cout << to_json(session, trials, winner).dump(2) << '\n';
    else if (winner)
      std::printf("best: trial %d, mesh %s, %.1f ms per step (x%.2f over the first run)\n",
                  winner->index, to_string(winner->mesh).c_str(), winner->step_ms,
                  trials.front().step_ms > 0 ? trials.front().step_ms / winner->step_ms : 0.0);
    (*rt)->stop();
    return winner ? 0 : 1;
  }
}

} // namespace paratune::cli
