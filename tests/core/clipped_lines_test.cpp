// core/clipped_lines: a Slurm command's stderr as the user reads it, whole
// lines or whole words, and a note of what was cut.
#include "core/clipped_lines.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

// What sbatch prints on a host that has neither SLURM_CONF nor
// /etc/slurm/slurm.conf (Slurm 22.05; tests/fixtures/slurm/sbatch_no_config.stderr).
const std::string no_config =
  "sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host\n"
  "sbatch: error: fetch_config: DNS SRV lookup failed\n"
  "sbatch: error: _establish_config_source: failed to fetch config\n"
  "sbatch: fatal: Could not establish a configuration source\n";

TEST(clipped_lines, keeps_every_line_that_fits_joined_on_one_line) {
  EXPECT_EQ(clipped_lines(no_config, 400),
            "sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host; "
            "sbatch: error: fetch_config: DNS SRV lookup failed; "
            "sbatch: error: _establish_config_source: failed to fetch config; "
            "sbatch: fatal: Could not establish a configuration source");
  EXPECT_EQ(clipped_lines("  one\r\n\n\ttwo  \n", 100), "one; two");
  EXPECT_EQ(clipped_lines("", 100), "");
  EXPECT_EQ(clipped_lines("\n \n", 100), "");
}

TEST(clipped_lines, cuts_after_a_whole_line_and_says_how_much_was_cut) {
  // 73 + 2 + 50 bytes fit in 130; the third line would not.
  EXPECT_EQ(clipped_lines(no_config, 130),
            "sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host; "
            "sbatch: error: fetch_config: DNS SRV lookup failed [124 more bytes cut]");
}

TEST(clipped_lines, cuts_a_first_line_too_long_after_its_last_whole_word) {
  EXPECT_EQ(clipped_lines(no_config, 70),
            "sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown"
            " [181 more bytes cut]");
  // A word longer than the bound is cut where the bound is.
  EXPECT_EQ(clipped_lines(std::string(50, 'x'), 10), "xxxxxxxxxx [40 more bytes cut]");
}

TEST(clipped_lines, shows_unprintable_bytes_as_question_marks) {
  EXPECT_EQ(clipped_lines(std::string("a\x1b[31mred\xfe b", 12), 100), "a?[31mred? b");
}

} // namespace
} // namespace paratune
