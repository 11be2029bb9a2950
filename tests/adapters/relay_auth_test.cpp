// The relays' line signatures (adapters/relay/relay_auth.hpp). The expected
// values were computed apart from paratune, with Python's hmac module:
//   framed = lambda ps: b''.join(struct.pack('>Q', len(p)) + p for p in ps)
//   hmac.new(master, framed([b"paratune relay trial key v1", b"s1", b"1"]), sha256)
// with master = bytes(range(32)).

#include <array>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "adapters/relay/relay_auth.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

relay_key counting_key() {
  relay_key k{};
  for (size_t i = 0; i < k.size(); ++i)
    k[i] = static_cast<unsigned char>(i);
  return k;
}

/// The bus sequence frame of publisher 7's first message.
std::string sequence_frame() {
  std::string s(16, '\0');
  s[7] = 7;
  s[15] = 1;
  return s;
}

TEST(relay_auth, a_trials_key_is_hmac_sha256_of_the_master_over_session_and_trial) {
  EXPECT_EQ(to_hex(relay_trial_key(counting_key(), "s1", 1)),
            "47508ac596b6e80171fe9737497dd643b6c310b3140029ad7f01bfb5ace8a17d");
  EXPECT_EQ(to_hex(relay_trial_key(counting_key(), "s1", 2)),
            "c4a5a955eff502bbe8cba56c98e54d854419831eb9d2b3ff9161652545b45318");
}

TEST(relay_auth, a_frames_signature_covers_topic_payload_and_sequence) {
  const auto key = relay_trial_key(counting_key(), "s1", 1);
  const auto mac = relay_frame_mac(key, "relay.s1.1", "payload", sequence_frame());
  EXPECT_EQ(to_hex(*relay_key_from_hex(to_hex(relay_key{}))), std::string(64, '0'));
  ASSERT_EQ(mac.size(), 32u);
  relay_key as_key{};
  std::copy(mac.begin(), mac.end(), as_key.begin());
  EXPECT_EQ(to_hex(as_key), "2b9fcf15381fb7c4e81dfd8eb81781d1deaec7ed63bf13fb018c46b41c43ff18");
  EXPECT_TRUE(relay_frame_authentic(key, "relay.s1.1", "payload", sequence_frame(), mac));
}

TEST(relay_auth, any_change_or_another_trials_key_fails_the_check) {
  const auto key = relay_trial_key(counting_key(), "s1", 1);
  const auto mac = relay_frame_mac(key, "relay.s1.1", "payload", sequence_frame());
  const auto other = relay_trial_key(counting_key(), "s1", 2);
  EXPECT_FALSE(relay_frame_authentic(key, "relay.s1.1", "payloaD", sequence_frame(), mac));
  EXPECT_FALSE(relay_frame_authentic(key, "relay.s1.2", "payload", sequence_frame(), mac));
  EXPECT_FALSE(relay_frame_authentic(key, "relay.s1.1", "payload", std::string(16, '\0'), mac));
  EXPECT_FALSE(relay_frame_authentic(other, "relay.s1.1", "payload", sequence_frame(), mac));
  EXPECT_FALSE(relay_frame_authentic(key, "relay.s1.1", "payload", sequence_frame(), mac.substr(1)));
  EXPECT_FALSE(relay_frame_authentic(key, "relay.s1.1", "payload", sequence_frame(), ""));
  // Frames are length-prefixed: moving bytes from one frame to the next is a change.
  EXPECT_FALSE(relay_frame_authentic(key, "relay.s1.1p", "ayload", sequence_frame(), mac));
}

TEST(relay_auth, hex_is_exactly_64_digits) {
  const auto key = relay_trial_key(counting_key(), "s1", 1);
  EXPECT_EQ(relay_key_from_hex(to_hex(key)), key);
  EXPECT_EQ(relay_key_from_hex("47508AC596B6E80171FE9737497DD643B6C310B3140029AD7F01BFB5ACE8A17D"),
            key);
  EXPECT_FALSE(relay_key_from_hex(to_hex(key).substr(2)));
  EXPECT_FALSE(relay_key_from_hex(to_hex(key) + "00"));
  EXPECT_FALSE(relay_key_from_hex(std::string(63, '0') + "g"));
  EXPECT_FALSE(relay_key_from_hex(""));
}

TEST(relay_auth, two_random_masters_differ) {
  EXPECT_NE(random_relay_key(), random_relay_key());
}

struct relay_master_file : ::testing::Test {
  void SetUp() override { dir = test::make_temp_dir("relay-key"); }
  void TearDown() override { fs::remove_all(dir); }
  std::string dir;
};

TEST_F(relay_master_file, is_made_once_private_and_read_back_the_same) {
  const auto path = dir + "/relay.key";
  const auto made = load_or_create_relay_master(path);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 32);
  EXPECT_EQ(load_or_create_relay_master(path), made);
}

TEST_F(relay_master_file, that_others_can_read_is_refused_and_left_alone) {
  const auto path = dir + "/relay.key";
  (void)load_or_create_relay_master(path);
  fs::permissions(path, fs::perms::group_read | fs::perms::others_read, fs::perm_options::add);
  try {
    (void)load_or_create_relay_master(path);
    FAIL() << "a world-readable key was used";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("relay key " + path
                                         + " can be read or written by other users"),
              std::string::npos)
      << e.what();
  }
  EXPECT_EQ(fs::file_size(path), 32u); // not replaced
}

TEST_F(relay_master_file, of_the_wrong_size_is_refused) {
  const auto path = dir + "/relay.key";
  std::ofstream(path) << "short";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  try {
    (void)load_or_create_relay_master(path);
    FAIL() << "a 5-byte key was used";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "relay key " + path + " holds 5 bytes, not 32");
  }
}

TEST_F(relay_master_file, in_a_folder_that_does_not_exist_names_the_path) {
  const auto path = dir + "/missing/relay.key";
  try {
    (void)load_or_create_relay_master(path);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "relay key " + path + ": cannot create it: No such file or directory");
  }
}

} // namespace
} // namespace paratune
