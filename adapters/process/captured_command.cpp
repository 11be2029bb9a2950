#include "adapters/process/captured_command.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace paratune {

namespace {

using ending = captured_command_result::ending;

captured_command_result not_started(const std::string& why) {
  captured_command_result r;
  r.how = ending::not_started;
  r.failure = why;
  return r;
}

// The child's environment, built before fork: after fork in a process with
// threads only async-signal-safe calls are allowed, so no allocation there.
std::vector<std::string> child_environment(const captured_command_options& o) {
  std::vector<std::string> env;
  for (char** e = environ; o.inherit_env && e && *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool drop = false;
    for (const auto& p : o.drop_env_prefixes)
      drop = drop || name.compare(0, p.size(), p) == 0;
    for (const auto& [k, v] : o.set_env)
      drop = drop || name == k;
    if (!drop)
      env.push_back(std::move(entry));
  }
  for (const auto& [k, v] : o.set_env)
    env.push_back(k + "=" + v);
  return env;
}

// stdin as a file rather than a pipe: no SIGPIPE when the command does not
// read it, no deadlock between writing stdin and reading stdout.
int stdin_file(const std::string& text) {
  int fd = memfd_create("paratune-stdin", MFD_CLOEXEC);
  if (fd < 0) {
    char path[] = "/tmp/paratune-stdin-XXXXXX";
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
      return -1;
    unlink(path);
  }
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += std::size_t(n);
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

void close_pair(int p[2]) {
  if (p[0] >= 0) close(p[0]);
  if (p[1] >= 0) close(p[1]);
}

} // namespace

captured_command_result run_captured(const std::vector<std::string>& argv,
                                     const captured_command_options& options) {
  if (argv.empty() || argv[0].empty())
    return not_started("no command given");
  std::vector<std::string> env = child_environment(options);
  std::vector<char*> envp;
  for (auto& e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int in = stdin_file(options.stdin_text);
  if (in < 0)
    return not_started(std::string("cannot prepare standard input: ") + std::strerror(errno));
  int out[2] = {-1, -1}, err[2] = {-1, -1}, exec_status[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0
      || pipe2(exec_status, O_CLOEXEC) != 0) {
    int e = errno;
    close(in);
    close_pair(out);
    close_pair(err);
    close_pair(exec_status);
    return not_started(std::string("pipe failed: ") + std::strerror(e));
  }
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(in);
    close_pair(out);
    close_pair(err);
    close_pair(exec_status);
    return not_started(std::string("fork failed: ") + std::strerror(e));
  }
  if (pid == 0) {
    setpgid(0, 0);
    // The parent may ignore SIGPIPE or block signals; the command starts clean.
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    dup2(in, 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    execvpe(args[0], args.data(), envp.data());
    int e = errno;
    ssize_t ignored = write(exec_status[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  // Also here, so the group exists before the parent may have to kill it.
  setpgid(pid, pid);
  close(in);
  close(out[1]);
  close(err[1]);
  close(exec_status[1]);

  captured_command_result r;
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {exec_status[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int exec_errno = 0;
  int open_fds = 3;
  bool timed_out = false;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    int ready = poll(fds, 3, int(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR)
      break;
    for (int i = 0; i < 3; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n > 0) {
        if (i == 2) {
          if (std::size_t(n) >= sizeof exec_errno)
            std::memcpy(&exec_errno, buf, sizeof exec_errno);
        } else if (sinks[i]->size() < options.max_output_bytes) {
          sinks[i]->append(buf, std::min(std::size_t(n),
                                         options.max_output_bytes - sinks[i]->size()));
        }
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (timed_out) {
    kill(-pid, SIGKILL);  // the whole group: what the command started too
    kill(pid, SIGKILL);
  }
  for (auto& f : fds)
    if (f.fd >= 0)
      close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_errno != 0) {
    r.how = ending::not_started;
    r.failure = "cannot run " + argv[0] + ": " + std::strerror(exec_errno);
  } else if (timed_out) {
    r.how = ending::timed_out;
  } else if (WIFEXITED(status)) {
    r.how = ending::exited;
    r.exit_code = WEXITSTATUS(status);
  } else {
    r.how = ending::signalled;
    r.exit_code = 128 + WTERMSIG(status);
  }
  return r;
}

} // namespace paratune
