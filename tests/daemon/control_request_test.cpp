// Every control request is untrusted: what check_request refuses, and why.

#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "messages/control_request.hpp"
#include "daemon/daemon_config.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

std::string refusal_of(std::string_view bytes) {
  auto r = check_request(bytes);
  return r ? std::string("accepted") : describe(r.error());
}

std::string refusal_of(const control::request& r) { return refusal_of(wire::pack(r)); }

control::request op(const std::string& word, const std::string& session = {}) {
  control::request r;
  r.op = word;
  r.session = session;
  return r;
}

TEST(control_request, a_good_request_is_accepted_with_its_operation_as_an_enum) {
  auto checked = check_request(wire::pack(op("history", "s20261125T101010-abcd")));
  ASSERT_TRUE(checked);
  EXPECT_EQ(checked->op, control::control_op::history);
  EXPECT_EQ(checked->fields.session, "s20261125T101010-abcd");
}

TEST(control_request, bytes_that_are_not_a_request_are_refused_in_words) {
  // A negative integer, then junk: msgpack, but not a request.
  EXPECT_EQ(refusal_of("\xff\x00garbage"),
            "bad input: cannot decode control request: std::bad_cast");
  // A map cut short after its first key.
  EXPECT_EQ(refusal_of(std::string("\x81\xa2op", 4)),
            "bad input: cannot decode control request: insufficient bytes");
  EXPECT_NE(refusal_of(wire::pack(std::string("list"))).find("cannot decode control request"),
            std::string::npos);
  // A map that claims 2^31 entries in five bytes does not allocate them.
  EXPECT_NE(refusal_of(std::string("\xdf\x7f\xff\xff\xff", 5)).find("cannot decode"),
            std::string::npos);
}

TEST(control_request, version_operation_and_fields_are_checked) {
  auto v2 = op("list");
  v2.v = 2;
  EXPECT_EQ(refusal_of(v2), "bad input: protocol version 2 is not 1");
  EXPECT_EQ(refusal_of(op("drop_pool")), "bad input: unknown operation 'drop_pool'");
  EXPECT_EQ(refusal_of(op("status", "../../etc")),
            "bad input: status: '../../etc' is not a session id (letters, digits, '.', '_', "
            "'-', at most 128)");
  EXPECT_NE(refusal_of(op("cancel", "")).find("is not a session id"), std::string::npos);
  EXPECT_EQ(refusal_of(op("submit")), "bad input: submit: the job file's text is empty");
  auto huge = op("submit");
  huge.job_yaml.assign((1 << 20) + 1, 'x');
  EXPECT_EQ(refusal_of(huge), "bad input: submit: the job file is 1048577 bytes, more than 1048576");
  auto negative = op("submit");
  negative.job_yaml = "name: x";
  negative.trials = -3;
  EXPECT_EQ(refusal_of(negative), "bad input: submit: trials -3 is not in 0..100000");
}

TEST(control_request, an_ask_names_a_session_and_bounds_its_question_and_thread) {
  auto ask = op("ask", "s20261125T101010-abcd");
  ask.question = "why this proposal first?";
  ask.thread = 2;
  const auto checked = check_request(wire::pack(ask));
  ASSERT_TRUE(checked);
  EXPECT_EQ(checked->op, control::control_op::ask);
  EXPECT_EQ(checked->fields.question, "why this proposal first?");
  EXPECT_EQ(checked->fields.thread, 2);
  EXPECT_EQ(refusal_of(op("ask", "../x")),
            "bad input: ask: '../x' is not a session id (letters, digits, '.', '_', '-', at most "
            "128)");
  auto long_question = ask;
  long_question.question.assign(control::max_question_bytes + 1, 'w');
  EXPECT_EQ(refusal_of(long_question),
            "bad input: ask: the question is 4097 bytes, more than 4096");
  auto bad_thread = ask;
  bad_thread.thread = -1;
  EXPECT_EQ(refusal_of(bad_thread), "bad input: ask: thread -1 is not in 0..1000000");
}

TEST(daemon_config, endpoints_stay_on_the_loopback_unless_allowed) {
  daemon_config c;
  EXPECT_NO_THROW(check_daemon_config(c));
  c.control = "tcp://0.0.0.0:7710";
  try {
    check_daemon_config(c);
    FAIL() << "a wildcard control endpoint was accepted";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "control: 'tcp://0.0.0.0:7710' is not on the loopback; set "
                           "allow_remote: true to listen beyond this machine");
  }
  c.allow_remote = true;
  EXPECT_THROW(check_daemon_config(c), input_error); // TCP: CURVE and a client list, or nothing
  c.curve_key = "/etc/paratune/paratune-daemon.key";
  EXPECT_THROW(check_daemon_config(c), input_error);
  c.authorized_keys = "/etc/paratune/clients";
  EXPECT_NO_THROW(check_daemon_config(c));
  c = {};
  c.state_dir = "/var/lib/" + std::string(120, 'p');
  try {
    check_daemon_config(c);
    FAIL() << "a socket path longer than sun_path was accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 60),
              "control: the socket path '/var/lib/" + std::string(25, 'p'));
    EXPECT_NE(std::string(e.what()).find("' is 142 bytes, more than a Unix socket holds (107); choose a shorter state directory"),
              std::string::npos) << e.what();
  }
  c = {};
  c.control_users = {"no-such-user-here"};
  try {
    check_daemon_config(c);
    FAIL() << "an unknown control user was accepted";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "control_users: no user 'no-such-user-here' on this host");
  }
  c.control_users = {"root", "65534"};
  EXPECT_EQ(control_user_ids(c), (std::vector<uint32_t>{0, 65534}));
  c = {};
  c.http = "10.1.2.3:7713";
  c.allow_remote = true;
  try {
    check_daemon_config(c);
    FAIL() << "a dashboard beyond the loopback without a token was accepted";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "http: '10.1.2.3:7713' is beyond the loopback without "
                           "http_token_file: the dashboard would show every session to anyone "
                           "who can reach it");
  }
  c = {};
  c.bus_publish = "tcp://127.0.0.1:70000";
  EXPECT_THROW(check_daemon_config(c), input_error);
  c = {};
  c.http = "example.com:80";
  EXPECT_THROW(check_daemon_config(c), input_error);
  c = {};
  c.control = "http://127.0.0.1:1";
  EXPECT_THROW(check_daemon_config(c), input_error);
}

TEST(daemon_config, the_example_config_and_the_systemd_unit_agree) {
  const auto c = load_daemon_config(test::source_dir() + "/configs/daemon.yaml");
  EXPECT_NO_THROW(check_daemon_config(c));
  EXPECT_EQ(c.state_dir, "/var/lib/paratune");
  EXPECT_EQ(c.control, daemon_config{}.control);
  EXPECT_EQ(c.http, "127.0.0.1:7713");
  EXPECT_EQ(c.log, log_format::json);
  EXPECT_TRUE(c.sync_writes);
  // The unit runs the daemon on that config and restarts it when it fails.
  std::ifstream unit{test::source_dir() + "/tools/paratune-daemon.service"};
  std::set<std::string> lines;
  for (std::string line; std::getline(unit, line);)
    lines.insert(line);
  EXPECT_TRUE(lines.count("ExecStart=/usr/local/bin/paratune daemon --config "
                          "/etc/paratune/daemon.yaml --state /var/lib/paratune --log-format json"));
  EXPECT_TRUE(lines.count("Restart=on-failure"));
  EXPECT_TRUE(lines.count("KillSignal=SIGTERM"));
}

TEST(daemon_config, a_config_file_is_read_and_an_unknown_key_named) {
  const auto dir = test::make_temp_dir("daemon-config");
  const auto good = test::write_file(dir, "good.yaml",
                                     "state: /var/lib/paratune\ncontrol: tcp://127.0.0.1:9000\n"
                                     "bus: {publish: tcp://127.0.0.1:9001, subscribe: "
                                     "tcp://127.0.0.1:9002}\nhttp: \"off\"\n"
                                     "log: {format: json, level: warn}\nmax_sessions: 8\n");
  const auto c = load_daemon_config(good);
  EXPECT_EQ(c.state_dir, "/var/lib/paratune");
  EXPECT_EQ(c.control, "tcp://127.0.0.1:9000");
  EXPECT_EQ(c.bus_subscribe, "tcp://127.0.0.1:9002");
  EXPECT_EQ(c.http, "");
  EXPECT_EQ(c.log, log_format::json);
  EXPECT_EQ(c.log_level, "warn");
  EXPECT_EQ(c.max_sessions, 8);
  const auto bad = test::write_file(dir, "bad.yaml", "state: /x\ncontrl: tcp://127.0.0.1:1\n");
  try {
    load_daemon_config(bad);
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), bad + ":2: unknown key 'contrl' (did you mean 'control'?)");
  }
  const auto nested = test::write_file(dir, "nested.yaml", "state: /x\nlog:\n  levl: warn\n");
  try {
    load_daemon_config(nested);
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), nested + ":3: log: unknown key 'levl' (did you mean 'level'?)");
  }
  // The command refuses it too, before anything starts.
  const auto r = test::run_program({test::bin_dir() + "/paratune", "daemon", "--config", bad});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: " + bad + ":2: unknown key 'contrl' (did you mean 'control'?)\n");
  // A key given twice (yaml-cpp would answer the first) is refused, nested too.
  const auto twice = test::write_file(dir, "twice.yaml",
                                      "state: /x\nlog: {format: json,\n      format: text}\n");
  try {
    load_daemon_config(twice);
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), twice + ": line 3: key 'format' appears twice (first on line 2)");
  }
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

TEST(daemon_config, a_reasoner_is_read_as_a_jobs_and_its_key_must_be_set_at_start) {
  const auto dir = test::make_temp_dir("daemon-reasoner");
  const auto file = test::write_file(
    dir, "daemon.yaml",
    "reasoner: {mode: hybrid, base_url: \"http://127.0.0.1:8000/v1\", model: qwen2.5-7b-instruct,"
    " api_key_env: PARATUNE_DAEMON_CONFIG_KEY, agents: {failure_analysis: llm}}\n");
  unsetenv("PARATUNE_DAEMON_CONFIG_KEY");
  const auto c = load_daemon_config(file);
  EXPECT_EQ(c.reasoner.of(reasoning_agent::strategy_generation).mode, reasoner_mode::hybrid);
  EXPECT_EQ(c.reasoner.of(reasoning_agent::failure_analysis).mode, reasoner_mode::llm);
  EXPECT_EQ(c.reasoner.of(reasoning_agent::failure_analysis).model, "qwen2.5-7b-instruct");
  try {
    check_daemon_config(c);
    ADD_FAILURE() << "a config whose key variable is unset was accepted";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "reasoner: strategy_generation: environment variable "
                           "PARATUNE_DAEMON_CONFIG_KEY (api_key_env) is not set");
  }
  setenv("PARATUNE_DAEMON_CONFIG_KEY", "sk-x", 1);
  EXPECT_NO_THROW(check_daemon_config(c));
  unsetenv("PARATUNE_DAEMON_CONFIG_KEY");
  const auto bad = test::write_file(dir, "bad.yaml", "reasoner: {mode: llm}\n");
  try {
    load_daemon_config(bad);
    ADD_FAILURE() << "a reasoner without a base_url was accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), bad + ": field 'reasoner': reasoner base_url must start "
                                           "with http:// or https://, not ''");
  }
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace paratune
