// The comparison on screen: both sides' live progress side by side, then the table of what each
// found and spent and the sources only one side read.
import { html, nothing, render } from "lit-html";
import { compareRows, sharedWords } from "../compare";
import { displayUrl, inside } from "../dom";
import { formatUsage } from "../live";
import type { CompareScreen, CompareSideView } from "../store";
import type { Ctx } from "./ctx";

export function mountCompare(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);
  const body = $("compare-body");

  const column = (side: CompareSideView, busy: boolean) => {
    const live = side.live;
    return html`<section class="compare-side live" data-side=${side.label} aria-label=${`Side ${side.label}`}>
      <h2>${side.label} <span class="muted">${side.words}</span></h2>
      <ol class="graph" aria-label=${`Steps of side ${side.label}`}>${side.steps.map((step) => {
        const active = live.active.has(step.node);
        const done = live.done.has(step.node) && !active;
        return html`<li title=${step.doing} class=${[active ? "active" : "", done ? "done" : ""].filter(Boolean).join(" ") || nothing}
          aria-current=${active ? "step" : nothing}>${step.node.replace(/_/g, " ")}</li>`;
      })}</ol>
      <p class="status" role="status">${busy ? live.activity : "Done."}</p>
      <p class="usage">${formatUsage(live.calls, live.tokens, live.costUsd)}</p>
      <details class="live-sources" open><summary>Sources read <span>${live.sources.length}</span></summary>
        <ul>${live.sources.map((s) => html`<li>${displayUrl(s.url)} — ${s.facts} fact${s.facts === 1 ? "" : "s"}</li>`)}</ul></details>
    </section>`;
  };

  const results = (c: CompareScreen) => {
    const o = c.outcome;
    if (!o) return nothing;
    const rows = compareRows(o.columns);
    return html`<h2 id="compare-results">What each found and spent</h2>
      <table id="compare-table" class="compare-table" aria-labelledby="compare-results">
        <thead><tr><th></th>${o.columns.map((col, i) => html`<th>${col.label} <span class="muted">${c.sides[i]?.words ?? col.pipeline}</span></th>`)}</tr></thead>
        <tbody>${rows.map(([name, ...values]) => html`<tr><th scope="row">${name}</th>${values.map((v) => html`<td>${v}</td>`)}</tr>`)}</tbody>
      </table>
      <p class="muted" id="compare-shared">${sharedWords(o)}</p>
      <div class="compare-only">${o.columns.map((col) => html`<section data-side=${col.label}><h3>Only ${col.label} read</h3>
        ${col.only_here.length ? html`<ul>${col.only_here.map((u) => html`<li><button class="link" @click=${() => actions.openExternal(u)}>${displayUrl(u)}</button></li>`)}</ul>`
          : html`<p class="muted">Nothing the other side did not read too.</p>`}</section>`)}</div>
      <div class="actions"><button id="compare-open" class="primary" @click=${() => void actions.openSession(o.session_id)}>Open the session with both reports</button></div>`;
  };

  let frame = 0;
  const draw = () => {
    frame = 0;
    const c = store.get().compare;
    $("compare-question").textContent = c?.question ?? "";
    if (!c) {
      render(html`<p class="muted">Choose a second configuration under New research to compare two.</p>`, body);
      return;
    }
    render(html`
      ${c.busy ? html`<p class="status" role="status">Both sides are running; the table comes when both are done.</p>` : nothing}
      ${c.error ? html`<p class="error" role="alert">${c.error}</p>` : nothing}
      <div class="compare-sides">${c.sides.map((s) => column(s, c.busy))}</div>
      ${results(c)}`, body);
  };
  // Events come fast: drawn at most once a frame.
  store.watch((s) => s.compare, () => {
    if (!frame) frame = requestAnimationFrame(draw);
  });
}
