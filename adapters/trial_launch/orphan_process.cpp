#include "adapters/trial_launch/orphan_process.hpp"

#include <csignal>
#include <fstream>

namespace paratune {

namespace {

/// The program a process runs, from /proc; empty when it is gone.
std::string program_of(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string argv0;
  std::getline(in, argv0, '\0');
  return argv0;
}

} // namespace

std::string end_orphan(const wire::trial_job& job) {
  if (job.pid <= 0)
    return "no process was recorded";
  if (program_of(job.pid) != job.argv0)
    return "its process " + std::to_string(job.pid) + " had already ended";
  kill(pid_t(-job.pid), SIGKILL);
  kill(pid_t(job.pid), SIGKILL);
  return "its process group " + std::to_string(job.pid) + " was ended";
}

} // namespace paratune
