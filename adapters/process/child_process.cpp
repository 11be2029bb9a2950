#include "adapters/process/child_process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <system_error>

#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace paratune {

namespace {

/// Longest line kept; the rest of an over-long line is dropped so a child
/// printing binary junk cannot exhaust memory.
constexpr size_t max_line = 1 << 16;

// argv and envp are built before fork: the child of a threaded process
// must not allocate.
// A vfork child shares the daemon's memory until it execs, so no handler of
// the daemon's may run in it: every caught signal goes back to its default
// (the child has its own dispositions; vfork does not share them), then the
// mask the parent blocked everything with is lifted.
void default_signals_then_unblock(const sigset_t& old_mask) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler != SIG_IGN
        && current.sa_handler != SIG_DFL)
      sigaction(sig, &dfl, nullptr);
  }
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
}

[[noreturn]] void exec_child(char** args, char** envp, const char* error, size_t error_size,
                             int out_fd, pid_t parent, const sigset_t& old_mask) {
  default_signals_then_unblock(old_mask);
  // Its own process group, so that ending the trial ends what it started
  // (a launcher's workers too), and a restarted daemon can end a group
  // left behind by the one that died. The kernel kills it when the thread
  // that started it dies, so a daemon killed with SIGKILL leaves no trial
  // running unwatched; the check after prctl closes the race with a
  // parent that died before it.
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(128 + SIGKILL);
  dup2(out_fd, STDOUT_FILENO);
  dup2(out_fd, STDERR_FILENO);
  close(out_fd);
  if (envp)
    execve(args[0], args, envp);
  else
    execv(args[0], args);
  const char* why = std::strerror(errno);
  (void)!write(STDERR_FILENO, error, error_size);
  (void)!write(STDERR_FILENO, why, std::strlen(why));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(127);
}

} // namespace

child_process::child_process(std::vector<std::string> argv, line_handler on_line,
                             exit_handler on_exit, std::optional<process_env> env)
  : on_line_(std::move(on_line)), on_exit_(std::move(on_exit)) {
  if (argv.empty())
    throw std::invalid_argument("child_process: empty argv");
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::optional<envp_block> envp;
  if (env)
    envp.emplace(*env);
  const std::string error = "exec " + argv[0] + " failed: ";
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe");
  const pid_t parent = getpid();
  // vfork: the child borrows this process's memory until it execs, and
  // this thread waits that long. fork would copy the page tables of a
  // daemon hosting hundreds of sessions and make every page copy-on-write
  // for all its threads, for each trial (issue 24: a fifth of the daemon's
  // CPU at 200 sessions). The child only makes system calls before exec.
  // Signals stay blocked from before vfork until the child has reset its
  // handlers (exec_child), as posix_spawn does.
  sigset_t all, old_mask;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old_mask);
  pid_ = vfork();
  if (pid_ == 0) {
    close(fds[0]);
    exec_child(args.data(), envp ? envp->get() : nullptr, error.data(), error.size(), fds[1],
               parent, old_mask);
  }
  const int vfork_errno = errno;
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid_ < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::system_error(vfork_errno, std::generic_category(), "vfork");
  }
  setpgid(pid_, pid_); // also here: a terminate() right after fork finds the group
  close(fds[1]);
  reader_ = std::thread([this, fd = fds[0]] { read_loop(fd); });
}

child_process::~child_process() {
  if (!finished_)
    terminate(500);
  if (reader_.joinable())
    reader_.join();
}

void child_process::terminate(int grace_ms) {
  if (finished_ || pid_ <= 0)
    return;
  signal_group(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (!finished_ && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!finished_)
    signal_group(SIGKILL);
}

void child_process::signal_group(int sig) {
  // The group first: the trial and whatever it started. A child that left
  // its group (setsid of its own) still gets the signal itself.
  kill(-pid_, sig);
  kill(pid_, sig);
}

void child_process::read_loop(int fd) {
  std::string line;
  char buf[8192];
  bool overflow = false;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        if (on_line_)
          on_line_(line);
        line.clear();
        overflow = false;
      } else if (line.size() < max_line) {
        line.push_back(buf[i]);
      } else {
        overflow = true;
      }
    }
  }
  (void)overflow;
  if (!line.empty() && on_line_)
    on_line_(line);
  close(fd);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status)
                   : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
  // The exit is reported before finished() says so: whoever polls
  // finished() then reads what on_exit_ recorded, never the state before it.
  if (on_exit_)
    on_exit_(code);
  finished_ = true;
}

} // namespace paratune
