// Slurm's compressed node lists, as squeue's %N and slurmrestd's "nodes"
// give them, expanded for a dcgm-exporter URL per node; and the URL
// template itself.

#include "core/telemetry/slurm_hostlist.hpp"

#include <gtest/gtest.h>

#include "core/telemetry/dcgm_url.hpp"

namespace paratune {
namespace {

std::vector<std::string> hosts(std::string_view list) {
  auto r = expand_slurm_hostlist(list);
  if (auto* e = std::get_if<hostlist_error>(&r))
    ADD_FAILURE() << list << ": " << e->message;
  return std::get_if<std::vector<std::string>>(&r) ? std::get<std::vector<std::string>>(r)
                                                     : std::vector<std::string>{};
}

std::string refusal(std::string_view list) {
  auto r = expand_slurm_hostlist(list);
  const auto* e = std::get_if<hostlist_error>(&r);
  return e ? e->message : "(expanded)";
}

TEST(slurm_hostlist, expands_ranges_keeping_their_padding) {
  EXPECT_EQ(hosts("node1"), (std::vector<std::string>{"node1"}));
  EXPECT_EQ(hosts("gpu[01-03,07],login1"),
            (std::vector<std::string>{"gpu01", "gpu02", "gpu03", "gpu07", "login1"}));
  EXPECT_EQ(hosts("gpu[08-10]"), (std::vector<std::string>{"gpu08", "gpu09", "gpu10"}));
  EXPECT_EQ(hosts("rack[1-2]-n[1-2]"),
            (std::vector<std::string>{"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"}));
  EXPECT_EQ(hosts("a.example.org,b_2"), (std::vector<std::string>{"a.example.org", "b_2"}));
  EXPECT_EQ(hosts("n[000-999]").size(), 1000u);
}

TEST(slurm_hostlist, refuses_what_is_not_a_node_list) {
  EXPECT_EQ(refusal("gpu[01-03"), "node list 'gpu[01-03': unclosed '['");
  EXPECT_EQ(refusal("gpu[3-1]"), "node list 'gpu[3-1]': bad range '3-1'");
  EXPECT_EQ(refusal("gpu[a-b]"), "node list 'gpu[a-b]': bad range 'a-b'");
  EXPECT_EQ(refusal("evil/path"),
            "node list 'evil/path': a host name holds only letters, digits, '.', '-' and '_'");
  EXPECT_EQ(refusal("x@127.0.0.1"),
            "node list 'x@127.0.0.1': a host name holds only letters, digits, '.', '-' and '_'");
  EXPECT_EQ(refusal("a,,b"), "node list 'a,,b': an empty or overlong host name");
  // A hostile list cannot make it allocate: the expansion stops at 4096.
  EXPECT_EQ(refusal("n[0-99999999]"), "node list 'n[0-99999999]': more than 4096 hosts");
  EXPECT_EQ(refusal("a[0-99]b[0-99]"), "node list 'a[0-99]b[0-99]': more than 4096 hosts");
}

TEST(dcgm_url, names_each_node_in_place_of_host) {
  EXPECT_TRUE(names_job_hosts("http://{host}:9400/metrics"));
  EXPECT_FALSE(names_job_hosts("http://gpu01:9400/metrics"));
  EXPECT_EQ(dcgm_url_for_host("http://{host}:9400/metrics", "gpu07"),
            "http://gpu07:9400/metrics");
  EXPECT_EQ(dcgm_url_for_host("https://{host}.dc:9400/m?h={host}", "n1"),
            "https://n1.dc:9400/m?h=n1");
}

} // namespace
} // namespace paratune
