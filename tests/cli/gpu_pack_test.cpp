// tools/gpu-pack/pack: the runtime carried to a lent GPU machine (issue 49).
// The build's three programs are packed into a temp folder with the
// libraries they load; the archive the device tool would carry is unpacked
// into a second folder, and the programs run from there with this machine's
// copies of those libraries hidden (a mount namespace binds a folder holding
// only glibc over each folder they came from): `--version`, and a 2-trial
// simulated tune that must give the build's own answer. Megatron-LM is packed
// from a small snapshot the test writes itself (a megatron/ folder and a
// pretrain_gpt.py), in its own temp folder, so it carries all it needs.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

const char* const pack_programs[] = {"paratune", "paratune-sim", "paratune-relay"};

// glibc's own libraries, which the pack leaves to the machine it runs on.
bool is_glibc_library(const std::string& name) {
  for (const char* prefix : {"linux-vdso.so", "ld-linux", "libc.so", "libm.so", "libmvec.so",
                             "libpthread.so", "libdl.so", "librt.so", "libresolv.so"})
    if (name.starts_with(prefix))
      return true;
  return false;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string example_job() { return test::source_dir() + "/configs/examples/llama3-8b-a100x8.yaml"; }

// What a trial did, as `tune --json` reports it: enough to tell two
// sessions' answers apart.
std::vector<std::string> trial_outcomes(const nlohmann::json& session) {
  std::vector<std::string> out;
  for (const auto& t : session.at("trials"))
    out.push_back(t.at("status").get<std::string>() + " mfu " + t.at("mfu").dump() + " peak "
                  + t.at("peak_memory_mib").dump() + " " + t.at("config").dump());
  return out;
}

class gpu_pack : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char* p : pack_programs)
      if (!fs::exists(test::bin_dir() + "/" + p))
        GTEST_SKIP() << p << " not built in " << test::bin_dir();
    dir = test::make_temp_dir("gpu-pack");
  }
  void TearDown() override {
    if (!dir.empty())
      fs::remove_all(dir);
  }

  test::program_result pack(std::vector<std::string> args) {
    args.insert(args.begin(), {test::source_dir() + "/tools/gpu-pack/pack", "--bin", test::bin_dir()});
    return test::run_program(args);
  }

  /// Packs the build into dir/pack and unpacks its archive into dir/copy,
  /// as the device command does on the machine.
  void pack_and_unpack() {
    const auto r = pack({"--out", pack_dir()});
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    fs::create_directories(copy_dir());
    const auto tar = test::run_program(
        {"/bin/tar", "-xzf", pack_dir() + "/carry/runtime.tar.gz", "-C", copy_dir()});
    ASSERT_EQ(tar.status, 0) << tar.err;
  }

  std::string pack_dir() const { return dir + "/pack"; }
  std::string copy_dir() const { return dir + "/copy"; }

  std::string dir;
};

TEST_F(gpu_pack, packs_the_three_programs_and_every_library_ldd_names_but_glibc) {
  const auto r = pack({"--out", pack_dir()});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("needs glibc >= 2."), std::string::npos) << r.out;
  // Outside the checkout the device tool cannot carry it, and says so.
  EXPECT_NE(r.out.find("carry: none: " + pack_dir() + " lies outside the checkout"),
            std::string::npos)
    << r.out;
  EXPECT_NE(r.out.find("device command: tar -xzf " + pack_dir() + "/carry/runtime.tar.gz -C "
                       + pack_dir() + " && " + pack_dir() + "/bin/paratune --version && "
                       + pack_dir() + "/bin/paratune tune configs/examples/llama3-8b-a100x8.yaml"
                       " --db /tmp/paratune-pool --trials 2\n"),
            std::string::npos)
    << r.out;

  std::set<std::string> packed;
  for (const auto& e : fs::directory_iterator(pack_dir() + "/lib"))
    packed.insert(e.path().filename().string());
  for (const auto& name : packed)
    EXPECT_FALSE(is_glibc_library(name)) << name << " is glibc's and must not be packed";
  // Each library the dynamic linker would load for a program, read here
  // with ldd independently of the tool.
  for (const char* p : pack_programs) {
    const auto ldd = test::run_program({"/usr/bin/ldd", test::bin_dir() + "/" + p});
    ASSERT_EQ(ldd.status, 0) << ldd.err;
    std::istringstream lines(ldd.out);
    int needed = 0;
    for (std::string name, arrow, rest; lines >> name >> arrow && std::getline(lines, rest);) {
      if (arrow != "=>" || is_glibc_library(name))
        continue;
      ++needed;
      EXPECT_TRUE(packed.count(name)) << p << " loads " << name << ", which is not in the pack";
    }
    EXPECT_GT(needed, 2) << p << ": ldd named no library beyond glibc's:\n" << ldd.out;
    EXPECT_EQ(slurp(pack_dir() + "/libexec/" + p), slurp(test::bin_dir() + "/" + p)) << p;
  }
  EXPECT_TRUE(packed.count("libstdc++.so.6"));
  EXPECT_TRUE(packed.count("libzmq.so.5"));
  EXPECT_NE(slurp(pack_dir() + "/PACK.txt").find("Megatron-LM: not packed (no --megatron)"),
            std::string::npos);
}

TEST_F(gpu_pack, every_library_a_packed_program_loads_comes_from_the_pack_or_is_glibc) {
  ASSERT_NO_FATAL_FAILURE(pack_and_unpack());
  for (const char* p : pack_programs) {
    const auto r = test::run_program({copy_dir() + "/bin/" + p, "--version"}, {{"LD_DEBUG", "libs"}});
    ASSERT_EQ(r.status, 0) << p << r.err;
    EXPECT_EQ(r.out, test::run_program({test::bin_dir() + "/" + p, "--version"}).out);
    std::istringstream lines(r.err);
    int from_pack = 0;
    for (std::string line; std::getline(lines, line);) {
      const auto at = line.find("calling init: ");
      if (at == std::string::npos)
        continue;
      const fs::path lib = line.substr(at + std::strlen("calling init: "));
      if (lib.string().starts_with(copy_dir() + "/lib/"))
        ++from_pack;
      else
        EXPECT_TRUE(is_glibc_library(lib.filename().string())) << p << " loaded " << lib;
    }
    EXPECT_GE(from_pack, 3) << p << ":\n" << r.err;
  }
}

TEST_F(gpu_pack, the_unpacked_copy_runs_and_tunes_with_the_system_libraries_hidden) {
  ASSERT_NO_FATAL_FAILURE(pack_and_unpack());
  // The folders the packed libraries came from on this machine (PACK.txt's
  // "NAME <- PATH" lines), each to be covered by a folder of glibc alone.
  std::set<std::string> hide;
  std::vector<std::string> names;
  std::istringstream manifest(slurp(pack_dir() + "/PACK.txt"));
  for (std::string line; std::getline(manifest, line);)
    if (const auto arrow = line.find(" <- "); arrow != std::string::npos) {
      names.push_back(line.substr(2, arrow - 2));
      hide.insert(fs::canonical(fs::path(line.substr(arrow + 4)).parent_path()).string());
    }
  ASSERT_GT(names.size(), 10u);
  const auto glibc_only = dir + "/glibc-only";
  fs::create_directories(glibc_only);
  for (const auto& d : hide)
    for (const auto& e : fs::directory_iterator(d))
      if (is_glibc_library(e.path().filename().string()) && !e.is_directory())
        fs::copy_file(fs::canonical(e.path()), glibc_only / e.path().filename(),
                      fs::copy_options::overwrite_existing);

  std::string script = "set -u\n";
  for (const auto& d : hide)
    for (const auto& n : names)
      script += "if [ -e '" + d + "/" + n + "' ]; then echo 'still visible: " + d + "/" + n
                + "'; exit 3; fi\n";
  const auto out = dir + "/out";
  fs::create_directories(out);
  script += "'" + test::bin_dir() + "/paratune' --version >" + out + "/control.out 2>" + out
            + "/control.err; echo $? >" + out + "/control.rc\n";
  for (const char* p : pack_programs)
    script += "'" + copy_dir() + "/bin/" + p + "' --version >" + out + "/" + p + ".version\n";
  script += "'" + copy_dir() + "/bin/paratune' tune '" + example_job() + "' --db " + dir
            + "/pool --trials 2 --json >" + out + "/tune.json 2>" + out + "/tune.err; echo $? >"
            + out + "/tune.rc\n";

  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  setenv("PARATUNE_DATA", test::data_dir().c_str(), 1);
  unsetenv("PARATUNE_SIM");
  unsetenv("PARATUNE_RELAY");
  const auto log = dir + "/namespace.log";
  std::vector<const char*> targets;
  for (const auto& d : hide)
    targets.push_back(d.c_str());
  const pid_t pid = fork();
  ASSERT_GE(pid, 0) << std::strerror(errno);
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    if (unshare(CLONE_NEWNS) != 0) {
      dprintf(2, "unshare(CLONE_NEWNS): %s", std::strerror(errno));
      _exit(77);
    }
    // Private, so that nothing bound here reaches the rest of the machine.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      dprintf(2, "making / private: %s", std::strerror(errno));
      _exit(77);
    }
    for (const char* t : targets)
      if (mount(glibc_only.c_str(), t, nullptr, MS_BIND, nullptr) != 0) {
        dprintf(2, "binding over %s: %s", t, std::strerror(errno));
        _exit(77);
      }
    execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
    GTEST_SKIP() << "hiding the system's libraries needs root or CAP_SYS_ADMIN (" << slurp(log)
                 << ")";
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << ": " << slurp(log);

  // The build's own program cannot start there: the libraries are hidden.
  EXPECT_EQ(slurp(out + "/control.rc"), "127\n");
  EXPECT_NE(slurp(out + "/control.err").find("error while loading shared libraries"),
            std::string::npos)
    << slurp(out + "/control.err");
  for (const char* p : pack_programs)
    EXPECT_EQ(slurp(out + "/" + p + ".version"),
              test::run_program({test::bin_dir() + "/" + p, "--version"}).out)
      << p;

  ASSERT_EQ(slurp(out + "/tune.rc"), "0\n") << slurp(out + "/tune.err");
  const auto packed_session = nlohmann::json::parse(slurp(out + "/tune.json"));
  EXPECT_EQ(packed_session.at("state"), "finished");
  EXPECT_EQ(packed_session.at("ended_because"), "trial budget spent");
  const auto packed = trial_outcomes(packed_session);
  ASSERT_EQ(packed.size(), 2u);
  for (const auto& t : packed)
    EXPECT_TRUE(t.starts_with("succeeded ")) << t;
  // The same job tuned by the build itself, with the libraries in place:
  // the same two trials, to the last digit.
  const auto own = test::run_program({test::bin_dir() + "/paratune", "tune", example_job(), "--db",
                                      dir + "/own-pool", "--trials", "2", "--json"});
  ASSERT_EQ(own.status, 0) << own.err;
  EXPECT_EQ(packed, trial_outcomes(nlohmann::json::parse(own.out)));
}

TEST_F(gpu_pack, a_pack_over_the_limit_is_refused_and_nothing_is_left) {
  const auto r = pack({"--out", pack_dir(), "--limit-mib", "1"});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.err.find("gpu-pack: too large to carry: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is over the 1 MiB the device tool carries; nothing written to " + pack_dir()),
            std::string::npos)
    << r.err;
  EXPECT_TRUE(fs::is_empty(dir)) << "a half-made pack was left in " << dir;
}

TEST_F(gpu_pack, bad_arguments_exit_2_naming_what_is_wrong) {
  auto r = pack({"--out", pack_dir(), "--limit-mib", "lots"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "gpu-pack: --limit-mib 'lots' is not a positive whole number of MiB\n");
  r = test::run_program({test::source_dir() + "/tools/gpu-pack/pack", "--bin", dir, "--out", pack_dir()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("gpu-pack: --bin '" + dir + "' holds no built paratune"), std::string::npos)
    << r.err;
  // A folder that is not a pack is never replaced.
  fs::create_directories(dir + "/mine");
  test::write_file(dir + "/mine", "notes.txt", "mine\n");
  r = pack({"--out", dir + "/mine"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "gpu-pack: --out '" + dir + "/mine' exists and is not a pack (no PACK.txt): "
                   "not replacing it\n");
  EXPECT_EQ(slurp(dir + "/mine/notes.txt"), "mine\n");
  r = pack({"--out", pack_dir(), "--megatron", dir + "/mine"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "gpu-pack: --megatron '" + dir + "/mine' holds no pretrain_gpt.py with "
                   "megatron/ beside it\n");
  EXPECT_FALSE(fs::exists(pack_dir()));
}

TEST_F(gpu_pack, megatron_is_packed_with_the_shims_from_a_checkout_or_its_archive) {
  // A made-up snapshot in the vendored archive's shape: one top folder.
  const auto snapshot = dir + "/snapshot/megatron-lm";
  fs::create_directories(snapshot + "/megatron/core/__pycache__");
  test::write_file(snapshot, "pretrain_gpt.py", "# the trainer\n");
  test::write_file(snapshot, "LICENSE", "the licence\n");
  test::write_file(snapshot, "setup.py", "# not packed\n");
  test::write_file(snapshot + "/megatron/core", "__init__.py", "# core\n");
  test::write_file(snapshot + "/megatron/core/__pycache__", "__init__.cpython-312.pyc", "x");
  const auto archive = dir + "/megatron-lm_test.tar.gz";
  ASSERT_EQ(test::run_program({"/bin/tar", "-czf", archive, "-C", dir + "/snapshot", "megatron-lm"}).status, 0);

  for (const auto& from : {snapshot, archive}) {
    const auto r = pack({"--out", pack_dir(), "--megatron", from});
    ASSERT_EQ(r.status, 0) << from << r.err;
    EXPECT_NE(r.out.find(" && PATH=$PWD/" + pack_dir() + "/megatron-lm/bin:$PATH " + pack_dir()
                         + "/bin/paratune tune "),
              std::string::npos)
      << r.out;
    const auto m = pack_dir() + "/megatron-lm";
    EXPECT_EQ(slurp(m + "/pretrain_gpt.py"), "# the trainer\n");
    EXPECT_EQ(slurp(m + "/LICENSE"), "the licence\n");
    EXPECT_EQ(slurp(m + "/megatron/core/__init__.py"), "# core\n");
    EXPECT_FALSE(fs::exists(m + "/megatron/core/__pycache__"));
    EXPECT_FALSE(fs::exists(m + "/setup.py"));
    for (const char* shim : {"gpt_builders.py", "model_provider.py"})
      EXPECT_EQ(slurp(m + "/" + shim),
                slurp(test::source_dir() + "/tools/gpu-capture/megatron_shims/" + shim))
        << shim;
    EXPECT_NE(slurp(pack_dir() + "/PACK.txt").find("Megatron-LM: " + fs::canonical(from).string()),
              std::string::npos);
    // The archive carries it too.
    const auto listing = test::run_program({"/bin/tar", "-tzf", pack_dir() + "/carry/runtime.tar.gz"});
    EXPECT_NE(listing.out.find("megatron-lm/megatron/core/__init__.py\n"), std::string::npos);
    EXPECT_NE(listing.out.find("megatron-lm/bin/python3-config\n"), std::string::npos);
  }

  // The python3-config stand-in answers what Megatron-LM's Makefile asks.
  const auto python = test::run_program(
      {"/usr/bin/python3", "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"});
  if (python.status != 0)
    GTEST_SKIP() << "no python3 to compare the stand-in with";
  const auto shim = pack_dir() + "/megatron-lm/bin/python3-config";
  EXPECT_EQ(test::run_program({shim, "--extension-suffix"}).out, python.out);
  const auto other = test::run_program({shim, "--includes"});
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("only --extension-suffix is answered, not '--includes'"),
            std::string::npos);
}

} // namespace
} // namespace paratune
