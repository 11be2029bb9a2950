#include <gtest/gtest.h>

#include "core/job_file_reference.hpp"

namespace paratune {
namespace {

TEST(job_file_reference, a_slash_or_a_yaml_suffix_names_a_file_and_anything_else_the_catalog) {
  EXPECT_TRUE(names_a_file("models/my.yaml"));
  EXPECT_TRUE(names_a_file("my.yaml"));
  EXPECT_TRUE(names_a_file("my.yml"));
  EXPECT_TRUE(names_a_file("/abs/model"));
  EXPECT_FALSE(names_a_file("llama3-8b"));
  EXPECT_FALSE(names_a_file("dgx-a100-80g"));
}

TEST(job_file_reference, a_relative_path_is_joined_to_the_job_folder) {
  EXPECT_EQ(resolve_in_job_folder("models/my.yaml", "/jobs/a"), "/jobs/a/models/my.yaml");
  EXPECT_EQ(resolve_in_job_folder("../common/m.yaml", "/jobs/a"), "/jobs/common/m.yaml");
  EXPECT_EQ(resolve_in_job_folder("./m.yaml", "/jobs/a/"), "/jobs/a/m.yaml");
  EXPECT_EQ(resolve_in_job_folder("m.yaml", "sub"), "sub/m.yaml");
}

TEST(job_file_reference, an_absolute_path_or_no_job_folder_leaves_the_path_as_given) {
  EXPECT_EQ(resolve_in_job_folder("/etc/m.yaml", "/jobs/a"), "/etc/m.yaml");
  EXPECT_EQ(resolve_in_job_folder("models/my.yaml", ""), "models/my.yaml");
  EXPECT_EQ(resolve_in_job_folder("", "/jobs/a"), "");
}

} // namespace
} // namespace paratune
