#include "frameworks/framework.hpp"

#include <stdexcept>

namespace paratune {

namespace {

/// Filled by the registrars before main() runs, read-only after.
std::map<std::string, std::unique_ptr<framework>, std::less<>>& registry() {
  static std::map<std::string, std::unique_ptr<framework>, std::less<>> frameworks;
  return frameworks;
}

} // namespace

const framework* framework_named(std::string_view name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

std::vector<const framework*> registered_frameworks() {
  std::vector<const framework*> out;
  for (const auto& [name, f] : registry())
    out.push_back(f.get());
  return out;
}

bool framework::transient(const std::optional<logged_failure>& first, int exit_code) const {
  if (first)
    return first->kind == failure_kind::nccl_timeout;
  return exit_code == 125;
}

framework_registrar::framework_registrar(std::unique_ptr<framework> f) {
  const std::string name{f->name()};
  // Two folders claiming one name would make a session's records ambiguous.
  if (!registry().emplace(name, std::move(f)).second)
    throw std::logic_error("two frameworks are registered as '" + name + "'");
}

} // namespace paratune
