#pragma once

// Helpers shared by the diagnosis tests: catalog access, the ASAP fixtures,
// evidence built in code.

#include <string>

#include "core/diagnosis/diagnosis_evidence.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/diagnosis/proposal.hpp"

namespace paratune::test {

/// Points the catalog at the source tree's configs/.
void use_source_configs();

/// tests/fixtures/asap/<scenario>
std::string asap_dir(const std::string& scenario);

/// The experiment file of a fixture directory, loaded.
experiment_spec load_fixture_experiment(const std::string& dir);

/// An op for evidence built in code.
op_evidence make_op(const std::string& name, const std::string& category, double share,
                    const std::string& bound_by, double flops, double hbm);

/// Whether a note of `s` contains `words`.
bool has_note(const proposal_set& s, const std::string& words);

} // namespace paratune::test
