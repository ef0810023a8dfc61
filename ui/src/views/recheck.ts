// *Check sources again* on a session's report: the button, its progress, then what it found (each
// cited source's state, the sentences that lost their support) and the report version it made.
import { html, nothing, render } from "lit-html";
import { displayUrl, inside } from "../dom";
import { shallow } from "../store";
import { plainSentence, recheckSummary, sourceCheckWords } from "../trust";
import type { Ctx } from "./ctx";

export function mountRecheck(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);
  const button = $<HTMLButtonElement>("recheck");
  const box = $("recheck-box");
  button.addEventListener("click", () => void actions.recheckSources());

  store.watch((s) => [s.session?.recheck ?? null, s.session?.detail ?? null] as const, ([recheck, detail]) => {
    button.disabled = !detail?.reports.length || (recheck?.busy ?? false);
    button.setAttribute("aria-busy", String(recheck?.busy ?? false));
    const show = recheck && (recheck.busy || recheck.result || recheck.error);
    box.hidden = !show;
    if (!recheck || !show) {
      render(nothing, box);
      return;
    }
    if (recheck.busy) {
      const n = detail?.sources.length ?? 0;
      render(html`<p class="status" role="status">Reading the report's ${n ? `${n} ` : ""}cited source${n === 1 ? "" : "s"} again and checking each quote…</p>
        <progress aria-label="Checking the sources again"></progress>`, box);
      return;
    }
    if (recheck.error) {
      render(html`<p class="error" role="alert">${recheck.error}</p>
        <div class="actions"><button @click=${() => actions.closeRecheck()}>Close</button></div>`, box);
      return;
    }
    const r = recheck.result;
    if (!r) return;
    render(html`<h2 id="recheck-title">Sources checked again</h2>
      <p id="recheck-summary" role="status">${recheckSummary(r.sources, r.lost.length, r.version)}</p>
      <table class="recheck-sources" aria-labelledby="recheck-title">
        <thead><tr><th>#</th><th>Source</th><th>Found</th></tr></thead>
        <tbody>${r.sources.map((c) => html`<tr data-source=${c.source_id} data-state=${c.state.state}><td>${c.source_id}</td>
          <td class="source-url">${displayUrl(c.url)}</td><td class="state ${c.state.state}">${sourceCheckWords(c)}</td></tr>`)}</tbody>
      </table>
      ${r.lost.length ? html`<h3>Sentences that lost their support</h3>
        <ul class="lost">${r.lost.map((l) => html`<li><q>${plainSentence(l.sentence)}</q> <span class="muted">cites ${l.sources.map((n) => `[${n}]`).join("")}</span>
          <div class="why">${l.why}</div></li>`)}</ul>` : nothing}
      ${r.version !== null ? html`<p class="muted">The report below is version ${r.version}, with these sentences marked and a section on what was found; the earlier version stays in the session.</p>` : nothing}
      <div class="actions"><button id="recheck-close" @click=${() => actions.closeRecheck()}>Close</button></div>`, box);
  }, shallow);
}
