#pragma once

#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/runtime_test.hpp"

namespace paratune::test {

/// A runtime for the diagnosis agents' tests, reading the checkout's configs/.
struct runtime_fixture : runtime_test {
  void SetUp() override {
    use_source_configs();
    runtime_test::SetUp();
  }
};

} // namespace paratune::test
