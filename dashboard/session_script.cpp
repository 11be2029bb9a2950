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

  function trialRow(t) {
    const tr = document.createElement("tr");
    tr.className = "trial " + t.status;
    tr.dataset.trial = t.index;
    tr.dataset.status = t.status;
    const m = measured(t);
    if (m) tr.dataset.tflops = String(t.tflops_per_gpu);
    tr.append(
      text("td", t.index, "number"), text("td", t.change), text("td", t.pool),
      text("td", t.status), text("td", m ? fixed(t.tflops_per_gpu, 1) : "", "number"),
      text("td", m ? fixed(t.mfu, 3) : "", "number"),
      text("td", t.peak_memory_mib > 0 ? fixed(t.peak_memory_mib, 0) : "", "number"),
      text("td", t.stop ? t.stop + ": " + t.reason : ""));
    return tr;
  }

  function runningRow(r) {
    const tr = document.createElement("tr");
    tr.className = "trial running";
    tr.dataset.trial = r.index;
    tr.dataset.status = "running";
    tr.append(text("td", r.index, "number"), text("td", r.change), text("td", r.pool),
              text("td", "running"), text("td", ""), text("td", ""), text("td", ""),
              text("td", ""));
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
    const rows = s.trials.map(trialRow).concat(s.running.map(runningRow));
    rows.sort((a, b) => Number(a.dataset.trial) - Number(b.dataset.trial));
    document.querySelector("#trials tbody").replaceChildren(...rows);
    document.getElementById("notes").replaceChildren(...s.trials.map(notes).filter((n) => n));
    document.getElementById("state").textContent = s.state;
    document.getElementById("ended-because").textContent = s.ended_because || "";
    document.getElementById("done").textContent = s.trials.length + "/" + s.job.trials;
    document.getElementById("best").textContent = s.best
      ? fixed(s.best.tflops_per_gpu, 1) + " TFLOP/s/GPU, MFU " + fixed(s.best.mfu, 3) +
        " (trial " + s.best.trial + ")"
      : "none measured yet";
  }

  async function chart() {
    const answer = await fetch(api + "/mfu.svg", { cache: "no-store" });
    if (!answer.ok) throw new Error("the chart: HTTP " + answer.status);
    const doc = new DOMParser().parseFromString(await answer.text(), "image/svg+xml");
    if (doc.documentElement.nodeName !== "svg") throw new Error("the chart is not SVG");
    document.getElementById("chart").replaceChildren(document.importNode(doc.documentElement, true));
  }

  async function refresh() {
    const status = document.getElementById("status");
    let running = true;
    try {
      const answer = await fetch(api, { cache: "no-store" });
      if (!answer.ok) throw new Error("HTTP " + answer.status + " " + (await answer.text()));
      const s = await answer.json();
      render(s);
      await chart();
      refreshes += 1;
      root.dataset.refreshes = refreshes;
      running = s.state === "running";
      status.textContent = running
        ? "Live: refreshed every " + pollMs / 1000 + " s."
        : "The session has ended (" + s.state + ").";
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
