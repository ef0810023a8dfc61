// The Method tab's record of model calls: every call of the session's runs with its node, model,
// tokens and time, and — for runs that kept them — the prompt and answer, redacted by the api.
import { html, nothing, render } from "lit-html";
import { shallow } from "../store";
import type { CallRecord, RunCalls } from "../types";
import type { Ctx } from "./ctx";

function call(c: CallRecord, i: number) {
  const head = html`<span class="call-n">${i + 1}.</span> <strong>${c.node}</strong> · ${c.purpose || "—"} · <code>${c.model}</code>
    <span class="muted">${c.prompt_tokens} + ${c.completion_tokens} tokens, ${c.latency_ms} ms${c.failed ? ", failed" : ""}</span>`;
  const e = c.exchange;
  if (!e) return html`<li class="call">${head}</li>`;
  return html`<li class="call"><details><summary>${head}</summary>
    ${e.messages.map((m) => html`<h4>${m.role}</h4><pre class="call-text">${m.content}</pre>`)}
    ${e.schema ? html`<h4>schema</h4><pre class="call-text">${e.schema}</pre>` : nothing}
    ${e.answer !== undefined ? html`<h4>answer</h4><pre class="call-text">${e.answer}</pre>`
      : e.error !== undefined ? html`<h4>error</h4><pre class="call-text error">${e.error}</pre>` : nothing}
  </details></li>`;
}

function run(r: RunCalls, i: number, many: boolean) {
  const kept = r.calls.some((c) => c.exchange);
  return html`<section class="run-calls" data-thread=${r.thread}>
    ${many ? html`<h3>Run ${i + 1}: ${r.question}</h3>` : nothing}
    ${r.calls.length === 0 ? html`<p class="muted">No model calls.</p>` : html`
      ${kept ? nothing : html`<p class="muted">Only the counters were kept. To keep each prompt and answer, tick
        “Keep each model call's prompt and answer” under <em>Models per step and limits</em> when starting a run.</p>`}
      <ol class="calls">${r.calls.map(call)}</ol>`}
  </section>`;
}

export function mountCalls(root: HTMLElement, { store, actions }: Ctx) {
  store.watch((s) => [s.tab, s.session?.sessionId ?? null, s.session?.calls ?? null, s.session?.detail ?? null] as const,
    ([tab, sessionId, calls, detail]) => {
      if (!sessionId || !calls || !detail) {
        render(nothing, root);
        return;
      }
      if (tab === "method" && calls.runs === null) queueMicrotask(() => void actions.loadModelCalls());
      const runs = calls.runs;
      render(html`<h2 id="calls-title">Model calls</h2>
        ${runs === null ? html`<p class="muted">Reading the model calls…</p>`
          : html`${runs.map((r, i) => run(r, i, runs.length > 1))}`}
        ${calls.error ? html`<p class="error" role="alert">${calls.error}</p>` : nothing}`, root);
    }, shallow);
}
