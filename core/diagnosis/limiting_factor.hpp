#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis_report.hpp"
#include "core/diagnosis/proposal.hpp"
#include "core/tpu/mesh_model.hpp"

namespace paratune {

// One answer per question: the rules that keep `diagnose`, `predict` and
// `plan` from contradicting each other, or make them say why they differ.
//
// 1. A bottleneck is never named at a share the same output calls ok.
//    A KPI's ok mark is absolute (collectives under 10% of device time are
//    healthy for a job on their own); the bottleneck is relative (what the
//    step's time goes to most, weighted toward its longest operations). When
//    the class the Analyzer names has share KPIs and every one of them reads
//    ok, those KPIs read warn instead, and their note says why the class is
//    still named and the most removing it could gain. The class is kept:
//    the relative judgement is the one proposals act on (ASAP's experiment
//    3, where collectives are 5.35% of the step and every one of the five
//    longest operations, is communication-bound by the paper and its expert).
// 2. The profile and the mesh model may name different limits for the same
//    mesh; `diagnose` says which each names and why (compare_limiting).
//    `predict -e` and `plan -e` run the same model on the same mesh and so
//    name the same limiting factor.
// 3. `diagnose` proposes single moves from the measured mesh, `plan` ranks
//    every mesh from scratch: `diagnose` names plan's fastest mesh and why
//    it is or is not among its proposals (compare_with_plan).
// 4. A proposal's confidence never rises down the list: each is capped at
//    the one before it (rank_confidence), so confidence ranks with order.

/// The KPIs (kpi_check names) that measure the share of the step a class
/// takes: communication, exposed_communication for communication; duty_cycle,
/// infeed, input for input_host; pipeline_bubble; memory for
/// memory_capacity. None for compute and hbm_bandwidth, whose KPIs are
/// utilisations, where "ok" agrees with being the limit.
std::vector<std::string> share_kpis_of(bottleneck_class b);

/// Rule 1 on a finished report: the named bottleneck's share KPIs, when all
/// read ok, read warn with the reason in their note. Returns whether it
/// changed any.
bool flag_bottleneck_kpis(diagnosis_report& r);

/// The class the mesh model's limiting factor names (memory_capacity when
/// the mesh does not fit; else the largest of compute, hbm_bandwidth and
/// exposed communication).
bottleneck_class model_limiting_class(const mesh_prediction& p);

/// What the profile and the model say limits the same mesh.
struct limiting_comparison {
  bottleneck_class measured = bottleneck_class::unknown;  ///< the Analyzer's class
  bottleneck_class predicted = bottleneck_class::unknown; ///< predict -e's limiting factor
  bool agree = false;
  std::string explanation;  ///< one sentence: the same, or each side's numbers
};

/// Rule 2: the profile's class against the model's for the mesh it ran.
limiting_comparison compare_limiting(const diagnosis_report& r, const mesh_prediction& model);

/// Rule 3: one sentence on plan's fastest mesh against the proposals:
/// the same as the first, among them, or how many axes away from the
/// measured mesh it is and its predicted gain, which is why single moves
/// do not reach it. `plan_best` is plan's first entry (nullopt: nothing fits).
std::string compare_with_plan(const tpu_mesh& current, const mesh_prediction& current_model,
                              const std::optional<mesh_prediction>& plan_best,
                              const std::vector<proposal>& proposals);

/// Rule 4: caps each proposal's confidence at its predecessor's.
void rank_confidence(std::vector<proposal>& proposals);

} // namespace paratune
