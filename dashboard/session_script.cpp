#include "dashboard/session_script.hpp"

namespace paratune {

const char* session_script() {
  return R"js(
"use strict";
(() => {
  const root = document.getElementById("session");
  const api = "/api/sessions/" + encodeURIComponent(root.dataset.session);
  const pollMs = 2000;
  let refreshes = 0;

  const text = (tag, value, cls) => {
    const e = document.createElement(tag);
    e.textContent = value === undefined || value === null ? "" : String(value);
    if (cls) e.className = cls;
    return e;
  };
  const fixed = (x, digits) => (typeof x === "number" ? x.toFixed(digits) : "");
  const measured = (t) =>
    t.status === "succeeded" || (t.status === "stopped" && t.tflops_per_gpu > 0);

  // The trial number, with the change from its parent (and, for an
  // exploration, what it was predicted against) as a second line.
  function trialCell(index, change, t) {
    const td = text("td", index, "number");
    if (change) td.append(text("div", change, "change"));
    if (t && t.exploration)
      td.append(text("div", "exploration: predicted " + fixed(t.exploration.predicted_tflops, 1) +
        " TFLOP/s/GPU, below the best before it (" +
        fixed(t.exploration.best_before_tflops, 1) + ", trial " +
        t.exploration.best_before_trial + ")", "change exploration"));
    return td;
  }

  function header(keys) {
    const tr = document.createElement("tr");
    tr.append(text("th", "Trial", "number"), ...keys.map((k) => text("th", k)), text("th", "Pool"),
              text("th", "Status"), text("th", "TFLOP/s/GPU", "number"),
              text("th", "MFU (%)", "number"), text("th", "Peak memory (MiB)", "number"),
              text("th", "Stop reason"));
    return tr;
  }

  function trialRow(t, keys) {
    const tr = document.createElement("tr");
    tr.className = "trial " + t.status;
    tr.dataset.trial = t.index;
    tr.dataset.status = t.status;
    const m = measured(t);
    if (m) tr.dataset.tflops = String(t.tflops_per_gpu);
    tr.append(
      trialCell(t.index, t.change, t), ...keys.map((k) => text("td", t.config[k] ?? "-")),
      text("td", t.pool), text("td", t.status),
      text("td", m ? fixed(t.tflops_per_gpu, 1) : "", "number"),
      text("td", m ? fixed(100 * t.mfu, 1) : "", "number"),
      text("td", t.peak_memory_mib > 0 ? fixed(t.peak_memory_mib, 0) : "", "number"),
      text("td", t.stop ? t.stop + ": " + t.reason : ""));
    return tr;
  }

  function runningRow(r, keys) {
    const tr = document.createElement("tr");
    tr.className = "trial running";
    tr.dataset.trial = r.index;
    tr.dataset.status = "running";
    tr.append(trialCell(r.index, r.change, null), ...keys.map(() => text("td", "")),
              text("td", r.pool), text("td", "running"), text("td", ""), text("td", ""),
              text("td", ""), text("td", ""));
    return tr;
  }

  function notes(t) {
    const parts = [];
    if (t.diagnosis)
      parts.push(text("p", "Diagnosis: " + t.diagnosis.summary, "note diagnosis"));
    if (t.error) parts.push(text("p", "Failure: " + t.error, "note error"));
    if (t.status === "skipped" && t.reason)
      parts.push(text("p", "Not run: " + t.reason, "note skipped"));
    if (t.reasoning) parts.push(text("p", t.reasoning, "note reasoning"));
    if (parts.length === 0) return null;
    const section = document.createElement("section");
    section.className = "trial-notes";
    section.id = "trial-" + t.index;
    section.append(text("h3", "Trial " + t.index + ": " + t.change), ...parts);
    return section;
  }

  function render(s) {
    const keys = s.varying_keys || [];
    const rows = s.trials.map((t) => trialRow(t, keys))
      .concat(s.running.map((r) => runningRow(r, keys)));
    rows.sort((a, b) => Number(a.dataset.trial) - Number(b.dataset.trial));
    document.querySelector("#trials thead").replaceChildren(header(keys));
    document.querySelector("#trials tbody").replaceChildren(...rows);
    document.getElementById("notes").replaceChildren(...s.trials.map(notes).filter((n) => n));
    document.getElementById("state").textContent = s.state;
    document.getElementById("ended-because").textContent = s.ended_because || "";
    // The trials run of the budget, as every view counts them: a skipped
    // trial spends none (spends_budget in core/trial_outcome.hpp).
    document.getElementById("done").textContent =
      s.trials.filter((t) => t.status !== "skipped").length + "/" + s.job.trials;
    document.getElementById("best").textContent = s.best
      ? fixed(s.best.tflops_per_gpu, 1) + " TFLOP/s/GPU, MFU " + fixed(100 * s.best.mfu, 1) +
        "% (trial " + s.best.trial + ")"
      : "none measured yet";
  }

  // The answer and the charts, rendered by the server as in the report.
  async function panels() {
    const answer = await fetch(api + "/panels", { cache: "no-store" });
    if (!answer.ok) throw new Error("the charts: HTTP " + answer.status);
    const doc = new DOMParser().parseFromString(await answer.text(), "text/html");
    document.getElementById("panels")
      .replaceChildren(...Array.from(doc.body.childNodes, (n) => document.importNode(n, true)));
  }

  async function refresh() {
    const status = document.getElementById("status");
    let running = true;
    try {
      const answer = await fetch(api, { cache: "no-store" });
      if (!answer.ok) throw new Error("HTTP " + answer.status + " " + (await answer.text()));
      const s = await answer.json();
      render(s);
      running = s.state === "running";
      status.textContent = running
        ? "Live: refreshed every " + pollMs / 1000 + " s."
        : "The session has ended (" + s.state + ").";
      await panels();
      refreshes += 1;
      root.dataset.refreshes = refreshes;
    } catch (e) {
      status.textContent = "Cannot refresh: " + e.message;
    }
    if (running) setTimeout(refresh, pollMs);
  }

  refresh();
})();
)js";
}

} // namespace paratune
