// Who may drive a real daemon: its owner over the Unix socket, the users
// control_users names, and over TCP only the CURVE clients whose public key
// is in authorized_keys. The second user is real: the client runs under
// setpriv as uid 65534 (nobody) or 65533.

#include <filesystem>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <httplib.h>
#include <zmq.hpp>

#include "adapters/bus/zmq_bus.hpp"
#include "daemon/curve_keys.hpp"
#include "messages/codec.hpp"
#include "messages/topics.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using control::control_op;

/// A job whose trials take long enough to cancel one mid-run.
const char* slow_job = "name: access-test\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
                       "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, "
                       "recompute: full}\ntrials: 4\nstop: budget\n"
                       "simulation: {seed: 3, train_iters: 12, time_scale: 0.05}\n";

struct control_access : ::testing::Test {
  void SetUp() override {
    if (::geteuid() != 0)
      GTEST_SKIP() << "a second uid needs setpriv as root";
    dir = test::make_temp_dir("control-access");
    ::chmod(dir.c_str(), 0755);
    // A copy the other users may run: the build tree may sit in a folder
    // only its owner enters.
    fs::create_directories(dir + "/bin");
    fs::copy_file(test::bin_dir() + "/paratune", dir + "/bin/paratune");
    ::chmod((dir + "/bin/paratune").c_str(), 0755);
    fs::copy(test::source_dir() + "/configs", dir + "/configs", fs::copy_options::recursive);
  }
  void TearDown() override {
    if (!dir.empty())
      fs::remove_all(dir);
  }

  /// The client CLI as `uid` (and its gid), with no supplementary groups.
  test::program_result as_user(int uid, std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/env", "PARATUNE_CONFIGS=" + dir + "/configs",
                                     "/usr/bin/setpriv", "--reuid", std::to_string(uid),
                                     "--regid", std::to_string(uid), "--clear-groups",
                                     dir + "/bin/paratune"};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_program(argv);
  }
  test::program_result cli(std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args);
  }

  /// Submits slow_job; its session id, or empty.
  std::string submit_slow(test::daemon_process& d) {
    auto submit = test::request_of(control_op::submit);
    submit.job_yaml = slow_job;
    const auto reply = d.call(submit);
    EXPECT_TRUE(reply.ok) << reply.error;
    return reply.session;
  }

  std::string dir;
};

/// Publishes each envelope as a bus frame triple on `topic` at `endpoint`,
/// as any process that can connect there could.
void publish_forged(const std::string& endpoint, const std::string& topic,
                    const std::vector<wire::envelope>& envelopes) {
  zmq::context_t ctx{1};
  zmq::socket_t pub{ctx, zmq::socket_type::pub};
  pub.set(zmq::sockopt::linger, 1000);
  pub.connect(endpoint);
  std::this_thread::sleep_for(std::chrono::milliseconds(500)); // ZeroMQ's slow joiner
  uint64_t n = 0;
  for (const auto& e : envelopes) {
    pub.send(zmq::buffer(topic), zmq::send_flags::sndmore);
    pub.send(zmq::buffer(wire::pack(e)), zmq::send_flags::sndmore);
    pub.send(zmq::buffer(bus_sequence{7, ++n}.encode()), zmq::send_flags::none);
  }
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST_F(control_access, another_user_can_neither_list_nor_submit_nor_cancel) {
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  const auto socket = dir + "/state/control.sock";
  EXPECT_EQ(d.control(), "ipc://" + socket);
  EXPECT_EQ(mode_of(socket), 0600u);
  EXPECT_EQ(mode_of(dir + "/state"), 0700u);

  const auto id = submit_slow(d);
  ASSERT_FALSE(id.empty());

  const auto hint = "error: bus failure: no answer from the daemon at ipc://" + socket
                    + " within 1000 ms (cannot use " + socket
                    + ": Permission denied; only the daemon's owner and its control_users "
                      "may)\n";
  const auto list = as_user(65534, {"list", "--daemon", "ipc://" + socket, "--timeout", "1"});
  EXPECT_EQ(list.status, 1);
  EXPECT_EQ(list.err, hint);
  const auto cancel =
    as_user(65534, {"cancel", id, "--daemon", "ipc://" + socket, "--timeout", "1"});
  EXPECT_EQ(cancel.status, 1);
  EXPECT_EQ(cancel.err, hint);
  // ask, which stores a turn in the owner's pool, is the owner's alone too.
  const auto ask = as_user(65534, {"ask", id, "which configuration is best?", "--daemon",
                                   "ipc://" + socket, "--timeout", "1"});
  EXPECT_EQ(ask.status, 1);
  EXPECT_EQ(ask.err, hint);
  const auto job = test::write_file(dir, "job.yaml", slow_job);
  ::chmod(job.c_str(), 0644);
  const auto sub = as_user(65534, {"submit", job, "--daemon", "ipc://" + socket, "--timeout", "1"});
  EXPECT_EQ(sub.status, 1);
  EXPECT_EQ(sub.err, hint);

  // The owner's session ran on, untouched: not cancelled, one session only.
  const auto rows = d.call(test::request_of(control_op::list));
  ASSERT_TRUE(rows.ok) << rows.error;
  ASSERT_EQ(rows.sessions.size(), 1u);
  EXPECT_NE(rows.sessions[0].state, "cancelled");
  EXPECT_TRUE(d.call(test::request_of(control_op::cancel, id)).ok);
}

TEST_F(control_access, control_users_lets_a_named_uid_in_and_refuses_others_by_their_uid) {
  // Others may enter the state directory here, so that only the daemon's
  // uid check stands between them and the socket.
  fs::create_directories(dir + "/state");
  ::chmod((dir + "/state").c_str(), 0711);
  test::daemon_process d{dir + "/state", {"--control-user", "65533"}};
  ASSERT_TRUE(d.up()) << d.output();
  const auto socket = dir + "/state/control.sock";
  EXPECT_EQ(mode_of(socket), 0666u);

  const auto listed = as_user(65533, {"list", "--daemon", "ipc://" + socket, "--json"});
  EXPECT_EQ(listed.status, 0) << listed.err;
  EXPECT_EQ(listed.out, "{\n  \"http\": \"\",\n  \"relay_ingress\": \"" + d.relay()
                          + "\",\n  \"sessions\": []\n}\n");

  const auto refused = as_user(65534, {"list", "--daemon", "ipc://" + socket, "--timeout", "1"});
  EXPECT_EQ(refused.status, 1);
  EXPECT_EQ(refused.err, "error: bus failure: no answer from the daemon at ipc://" + socket
                           + " within 1000 ms (the daemon may have refused this user: its log "
                             "names who it refused)\n");
  // The daemon's log names the peer the kernel vouched for.
  const auto out = d.output();
  EXPECT_NE(out.find("control: refused uid 65534 (pid "), std::string::npos) << out;
  EXPECT_NE(out.find(") on the Unix socket: uid 65534 is neither the daemon's owner (uid 0) nor "
                     "in control_users"),
            std::string::npos) << out;
  EXPECT_EQ(out.find("refused uid 65533"), std::string::npos) << out;
}

TEST_F(control_access, tcp_control_hears_only_the_curve_clients_in_authorized_keys) {
  const auto keys = dir + "/keys", clients = dir + "/clients";
  fs::create_directories(keys);
  fs::create_directories(clients);
  ::chmod(clients.c_str(), 0700);
  ASSERT_EQ(cli({"keygen", "--out", keys}).status, 0);
  const auto alice = cli({"keygen", "--client", "--out", keys, "--name", "alice"});
  ASSERT_EQ(alice.status, 0) << alice.err;
  EXPECT_EQ(alice.out.substr(0, alice.out.find('\n')),
            "wrote " + keys + "/alice.key (secret: this client's --client-key) and " + keys
              + "/alice.pub (copy it into the daemon's authorized_keys folder)");
  ASSERT_EQ(cli({"keygen", "--client", "--out", keys, "--name", "mallory"}).status, 0);
  fs::copy_file(keys + "/alice.pub", clients + "/alice.pub");

  // TCP without an allow-list is refused before anything starts.
  const auto open = cli({"daemon", "--state", dir + "/s", "--control", "tcp://127.0.0.1:*",
                         "--curve-key", keys + "/paratune-daemon.key", "--http", "off"});
  EXPECT_EQ(open.status, 2);
  EXPECT_EQ(open.err, "error: control: 'tcp://127.0.0.1:*' is TCP, which needs curve_key and "
                      "authorized_keys: over TCP only CURVE clients whose public key is listed "
                      "are heard (paratune keygen; paratune keygen --client for each client)\n");

  test::daemon_process d{dir + "/state",
                         {"--control", "tcp://127.0.0.1:*", "--curve-key",
                          keys + "/paratune-daemon.key", "--authorized-keys", clients}};
  ASSERT_TRUE(d.up()) << d.output();
  const auto server = keys + "/paratune-daemon.pub";
  const auto as_alice = cli({"list", "--daemon", d.control(), "--server-key", server,
                             "--client-key", keys + "/alice.key", "--json"});
  EXPECT_EQ(as_alice.status, 0) << as_alice.err;
  EXPECT_EQ(as_alice.out, "{\n  \"http\": \"\",\n  \"relay_ingress\": \"" + d.relay()
                            + "\",\n  \"sessions\": []\n}\n");

  const auto as_mallory = cli({"list", "--daemon", d.control(), "--server-key", server,
                               "--client-key", keys + "/mallory.key", "--timeout", "1"});
  EXPECT_EQ(as_mallory.status, 1);
  EXPECT_EQ(as_mallory.err, "error: bus failure: no answer from the daemon at " + d.control()
                              + " within 1000 ms\n");
  // ask, through $PARATUNE_DAEMON, hears the same: mallory is refused, alice answered.
  const test::env_changes daemon_env = {{"PARATUNE_DAEMON", d.control().c_str()},
                                        {"PARATUNE_SERVER_KEY", server.c_str()}};
  const auto mallory_asks = test::run_program(
    {test::bin_dir() + "/paratune", "ask", "s-nope", "which is best?", "--client-key",
     keys + "/mallory.key", "--timeout", "1"},
    daemon_env);
  EXPECT_EQ(mallory_asks.status, 1);
  EXPECT_EQ(mallory_asks.err, as_mallory.err);
  const auto alice_asks = test::run_program(
    {test::bin_dir() + "/paratune", "ask", "s-nope", "which is best?", "--client-key",
     keys + "/alice.key"},
    daemon_env);
  EXPECT_EQ(alice_asks.status, 2); // heard, and told there is no such session
  EXPECT_EQ(alice_asks.err, "error: no tuning session 's-nope' in the daemon's pool\n");
  const auto mallory_pub = read_curve_key_file(keys + "/mallory.pub").public_key;
  EXPECT_NE(d.output().find("control: refused CURVE key " + mallory_pub
                            + " from 127.0.0.1: its public key is not in authorized_keys"),
            std::string::npos) << d.output();

  const auto keyless = cli({"list", "--daemon", d.control(), "--server-key", server});
  EXPECT_EQ(keyless.status, 2);
  EXPECT_EQ(keyless.err, "error: --client-key: the daemon speaks CURVE and hears only the "
                         "clients in its authorized_keys: give your key file (paratune keygen "
                         "--client) with --client-key or PARATUNE_CLIENT_KEY\n");
  const auto plain = cli({"list", "--daemon", d.control(), "--timeout", "1"});
  EXPECT_EQ(plain.status, 1);

  // The folder is read at each connection: a key added is heard at once.
  fs::copy_file(keys + "/mallory.pub", clients + "/mallory.pub");
  const auto now_listed = cli({"list", "--daemon", d.control(), "--server-key", server,
                               "--client-key", keys + "/mallory.key", "--json"});
  EXPECT_EQ(now_listed.status, 0) << now_listed.err;
}

TEST_F(control_access, an_authorized_keys_folder_others_may_write_to_is_refused) {
  const auto keys = dir + "/keys", clients = dir + "/clients";
  fs::create_directories(keys);
  fs::create_directories(clients);
  ::chmod(clients.c_str(), 0777);
  ASSERT_EQ(cli({"keygen", "--out", keys}).status, 0);
  const auto start = cli({"daemon", "--state", dir + "/s", "--control", "tcp://127.0.0.1:*",
                          "--curve-key", keys + "/paratune-daemon.key", "--authorized-keys",
                          clients, "--bus-publish", "tcp://127.0.0.1:*", "--bus-subscribe",
                          "tcp://127.0.0.1:*", "--http", "off"});
  EXPECT_EQ(start.status, 1);
  EXPECT_NE(start.err.find("authorized_keys: " + clients + ": others may write to this folder, "
                           "and so add a key of their own (chmod go-w)"),
            std::string::npos) << start.err;
}

TEST_F(control_access, a_forged_proposal_at_the_relay_ingress_launches_nothing_and_is_counted) {
  test::daemon_process d{dir + "/state", {"--http", "127.0.0.1:*"}};
  ASSERT_TRUE(d.up()) << d.output();
  const auto id = submit_slow(d);
  ASSERT_FALSE(id.empty());
  // The agents' bus is a pair of Unix sockets in the owner's directory; the
  // relay ingress is the only bus endpoint others can reach.
  EXPECT_TRUE(fs::exists(dir + "/state/bus-publish.sock"));
  EXPECT_EQ(mode_of(dir + "/state"), 0700u);
  const auto out = d.output();
  const auto at = out.find(", relay tcp://127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << out;
  const auto ingress = out.substr(at + 8, out.find('\n', at) - at - 8);

  const auto touched = dir + "/forged";
  wire::proposal forged;
  forged.trial = 99;
  forged.argv = {"/usr/bin/touch", touched};
  publish_forged(ingress, topics::proposal(id),
                 std::vector<wire::envelope>(20, wire::make_envelope(id, 1, forged)));
  // Lines for the session's trial 1 without its key's signature: refused.
  publish_forged(ingress, topics::relay(id, 1),
                 std::vector<wire::envelope>(5, wire::make_envelope(id, 1, forged)));
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_FALSE(fs::exists(touched));
  const auto colon = d.http().rfind(':');
  httplib::Client http{"127.0.0.1", std::stoi(d.http().substr(colon + 1))};
  const auto metrics = http.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("paratune_relay_ingress_messages_total{outcome=\"dropped\"} 20\n"),
            std::string::npos) << metrics->body;
  EXPECT_NE(metrics->body.find("paratune_relay_ingress_messages_total{outcome=\"passed\"} 0\n"),
            std::string::npos) << metrics->body;
  EXPECT_NE(
    metrics->body.find("paratune_relay_ingress_messages_total{outcome=\"unauthenticated\"} 5\n"),
    std::string::npos) << metrics->body;
  EXPECT_NE(d.output().find("bus: relay ingress refused a line on 'relay." + id
                            + ".1': it carries no signature"),
            std::string::npos) << d.output();
  // The secret the trials' keys derive from: the owner's alone.
  EXPECT_EQ(mode_of(dir + "/state/relay.key"), 0600u);
  EXPECT_NE(d.output().find("bus: relay ingress dropped a message on 'proposal." + id
                            + "' (3 frames): only relay lines come from cluster nodes"),
            std::string::npos) << d.output();
  const auto row = d.call(test::request_of(control_op::status, id));
  ASSERT_TRUE(row.ok) << row.error;
  EXPECT_LE(row.sessions.at(0).trials_done, 4);
}

TEST_F(control_access, the_validator_runs_only_proposals_the_sessions_pool_holds) {
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  const auto id = submit_slow(d);
  ASSERT_FALSE(id.empty());
  // A process of the owner's that is not one of the session's agents
  // publishes on the agents' own bus: a proposal with no record behind it,
  // and one that borrows the number of a stored proposal of trial 1.
  uint64_t stored_seq = 0;
  for (int i = 0; i < 100 && stored_seq == 0; ++i) {
    auto page = test::request_of(control_op::history, id);
    const auto records = d.call(page);
    for (const auto& r : records.records)
      if (r.type == wire::type_name<wire::proposal>())
        stored_seq = r.seq;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(stored_seq, 0u);
  const auto touched = dir + "/forged";
  wire::proposal forged;
  forged.trial = 3;
  forged.argv = {"/usr/bin/touch", touched};
  auto unrecorded = wire::make_envelope(id, 3, forged);
  auto borrowed = unrecorded;
  borrowed.seq = stored_seq;
  publish_forged("ipc://" + dir + "/state/bus-publish.sock", topics::proposal(id),
                 {unrecorded, borrowed});
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_FALSE(fs::exists(touched));
  const auto out = d.output();
  EXPECT_NE(out.find("validator: session " + id + ": a proposal for trial 3 (record 0) that the "
                     "session's pool does not hold, or for a session that has ended: ignored"),
            std::string::npos) << out;
  EXPECT_NE(out.find("validator: session " + id + ": a proposal for trial 3 (record "
                     + std::to_string(stored_seq) + ") that the session's pool does not hold"),
            std::string::npos) << out;
  EXPECT_TRUE(d.call(test::request_of(control_op::cancel, id)).ok);
}

} // namespace
} // namespace paratune
