#include "core/launch/batch_script.hpp"

#include "core/input_error.hpp"
#include "core/shell_quote.hpp"
#include "core/text.hpp"

namespace paratune {

std::string batch_script(const std::vector<std::string>& argv, const std::string& workdir,
                         const std::map<std::string, std::string>& env) {
  if (argv.empty())
    throw input_error("batch script: no command to run");
  std::string out = "#!/bin/bash\n"
                    "# Written by paratune: one trial, its command exec'd as these exact words.\n"
                    "set -eu\n";
  if (!workdir.empty())
    out += "cd -- " + shell_quote(workdir) + "\n";
  for (const auto& [name, value] : env) {
    if (!is_identifier(name))
      throw input_error("batch script: environment name '" + name
                        + "' is not a shell identifier ([A-Za-z_][A-Za-z0-9_]*)");
    out += "export " + name + "=" + shell_quote(value) + "\n";
  }
  return out + "exec " + shell_command(argv) + "\n";
}

} // namespace paratune
