#pragma once

// A search peer as a child process: started with fork and exec (argv only,
// no shell), spoken to in lines over its stdin and stdout. Every read has a
// deadline, so a peer that hangs, dies or never answers ends the run with
// a message instead of hanging the bench.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace paratune::bench {

/// A line read from the peer, or why none came.
struct peer_line {
  std::optional<std::string> line;
  std::string error;
};

class peer_process {
public:
  /// Starts argv[0] (searched in PATH) with the rest as its arguments. A
  /// start that fails leaves error() set.
  explicit peer_process(const std::vector<std::string>& argv) {
    if (argv.empty()) {
      error_ = "no peer command";
      return;
    }
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
      error_ = std::string("pipe: ") + std::strerror(errno);
      return;
    }
    // A peer that dies while the bench writes must be an error value, not
    // a SIGPIPE that ends the bench.
    signal(SIGPIPE, SIG_IGN);
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_ = fork();
    if (pid_ < 0) {
      error_ = std::string("fork: ") + std::strerror(errno);
      return;
    }
    if (pid_ == 0) {
      dup2(in[0], STDIN_FILENO);
      dup2(out[1], STDOUT_FILENO);
      execvp(args[0], args.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_peer_ = in[1];
    from_peer_ = out[0];
    // An interpreter's script names the peer better than the interpreter.
    const bool script = argv.size() > 1 && argv[1].size() > 3
                        && argv[1].compare(argv[1].size() - 3, 3, ".py") == 0;
    name_ = script ? argv[1] : argv[0];
  }

  ~peer_process() { stop(); }
  peer_process(const peer_process&) = delete;
  peer_process& operator=(const peer_process&) = delete;

  const std::string& error() const { return error_; }

  /// Writes one line; false (with error() set) when the peer is gone.
  bool send(const std::string& line) {
    const std::string data = line + "\n";
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::write(to_peer_, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        error_ = "peer " + name_ + " stopped reading (" + exit_text() + ")";
        return false;
      }
      done += size_t(n);
    }
    return true;
  }

  /// The next line, waiting at most `timeout`.
  peer_line read_line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return {std::move(line), {}};
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return {std::nullopt, "peer " + name_ + " sent no line within "
                                + std::to_string(timeout.count()) + " ms"};
      pollfd p{from_peer_, POLLIN, 0};
      const int r = poll(&p, 1, int(left.count()));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        continue;  // the deadline check above reports it
      char chunk[4096];
      const ssize_t n = ::read(from_peer_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return {std::nullopt, "peer " + name_ + " closed its output (" + exit_text() + ")"};
      buffer_.append(chunk, size_t(n));
    }
  }

  /// Closes the pipes and reaps the child, killing it if it does not end
  /// within a second of its stdin closing.
  void stop() {
    if (to_peer_ >= 0)
      close(to_peer_);
    to_peer_ = -1;
    if (pid_ > 0 && !reaped_) {
      for (int i = 0; i < 100 && !try_reap(); ++i)
        usleep(10000);
      if (!reaped_) {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
        reaped_ = true;
      }
    }
    if (from_peer_ >= 0)
      close(from_peer_);
    from_peer_ = -1;
  }

private:
  bool try_reap() {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      status_ = status;
    }
    return reaped_;
  }

  /// How the child ended, if it has.
  std::string exit_text() {
    for (int i = 0; i < 50 && !try_reap(); ++i)
      usleep(2000);
    if (!reaped_)
      return "still running";
    if (WIFEXITED(status_))
      return "exit status " + std::to_string(WEXITSTATUS(status_));
    if (WIFSIGNALED(status_))
      return "killed by signal " + std::to_string(WTERMSIG(status_));
    return "ended";
  }

  pid_t pid_ = -1;
  int to_peer_ = -1, from_peer_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string buffer_;
  std::string name_;
  std::string error_;
};

} // namespace paratune::bench
