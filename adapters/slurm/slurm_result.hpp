#pragma once

#include "adapters/slurm/slurm_error.hpp"

#include <utility>
#include <variant>

namespace paratune {

/// A value or the slurm_error saying why there is none. Scheduler output is
/// untrusted and a pool may be down at any time, so the Slurm clients return
/// these instead of throwing (C++20 has no std::expected). slurm_result<>
/// is for calls that only succeed or fail.
template <class T = std::monostate>
class slurm_result {
 public:
  slurm_result(T value) : v_(std::move(value)) {}
  slurm_result(slurm_error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  /// Only when ok().
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  /// Only when !ok().
  const slurm_error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, slurm_error> v_;
};

} // namespace paratune
