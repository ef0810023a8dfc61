// A session's report (with its citations), the text streamed or drafted above it, its sources
// and its method.
import { html, nothing, render } from "lit-html";
import { claimsBySource, sourceLabel } from "../citations";
import { displayUrl, el, inside } from "../dom";
import { methodView } from "../method";
import { runOf, shallow } from "../store";
import type { SessionDetail } from "../types";
import { credibilityOf, credibilityWords, sameOriginWords } from "../trust";
import type { Ctx } from "./ctx";
import { decorateMarks } from "./trust";

export function mountReport(root: HTMLElement, { store, actions, popover }: Ctx) {
  const $ = inside(root);
  const report = $("report");
  const stream = $("stream");

  /** Citations open the popover; links open in the system browser; nothing else navigates. */
  function decorate(detail: SessionDetail) {
    for (const a of report.querySelectorAll<HTMLAnchorElement>("a")) {
      const href = a.getAttribute("href") ?? "";
      const m = /^#cite-(\d+)$/.exec(href);
      if (m) {
        a.classList.add("cite");
        a.dataset.source = m[1];
        a.setAttribute("role", "button");
        a.setAttribute("aria-haspopup", "dialog");
        a.addEventListener("click", (e) => {
          e.preventDefault();
          // A click or Enter moves focus into the popover, so its buttons are reachable by keyboard.
          popover.open(a, Number(m[1]), detail, true);
        });
        a.addEventListener("mouseenter", () => popover.open(a, Number(m[1]), detail));
      } else if (/^(https?|mailto|file):/i.test(href)) {
        a.classList.add("external");
        a.addEventListener("click", (e) => {
          e.preventDefault();
          actions.openExternal(href);
        });
      } else {
        a.addEventListener("click", (e) => e.preventDefault());
      }
    }
  }

  store.watch((s) => [s.session?.panels ?? null, s.session?.draft ?? false] as const, ([detail, draft]) => {
    if (detail?.report_html) {
      report.innerHTML = detail.report_html; // comrak's output with raw HTML disabled
      decorate(detail);
      decorateMarks(report, detail, popover);
    } else if (detail && !draft) {
      // A failed run says why (kept by the api), so the person knows what to put right before Resume.
      report.replaceChildren(el("p", { className: "placeholder" }, detail.failure
        ? `No report: the run failed (${detail.failure}). Put that right, then Resume.`
        : "No report yet."));
    } else {
      report.replaceChildren();
    }
    renderSources(detail);
    renderMethod(detail);
  }, shallow);

  // While its run writes, the report streams in above; a draft under review stands there too.
  let frame = 0;
  const streamText = () => {
    const s = store.get();
    const run = runOf(s, s.session?.threadId);
    const live = run?.phase === "running" ? run.live?.stream : "";
    return live || (s.session?.stream ?? null);
  };
  store.watch(streamText, () => {
    if (!frame) frame = requestAnimationFrame(() => {
      frame = 0;
      const text = streamText();
      stream.hidden = text === null;
      if (stream.textContent !== (text ?? "")) stream.textContent = text ?? "";
    });
  });

  function renderSources(detail: SessionDetail | null) {
    const body = $("sources-body");
    if (!detail) {
      render(nothing, body);
      return;
    }
    const byClaims = claimsBySource(detail.evidence, detail.claims);
    // Pages the searches found but the run could not read: listed so nothing is silently dropped.
    const unread = detail.method?.unread ?? [];
    render(html`
      ${detail.sources.map((s) => {
        const quotes = detail.evidence.filter((e) => e.source_id === s.source_id).length;
        const claims = byClaims.get(s.source_id) ?? [];
        const first = detail.evidence.find((e) => e.source_id === s.source_id)?.quote ?? "";
        const cred = credibilityOf(detail.trust, s.source_id);
        const same = sameOriginWords(detail.trust, s.source_id);
        return html`<tr data-source=${s.source_id} class=${cred?.excluded ? "excluded" : nothing}><td>${s.source_id}</td>
          <td><button class="link" @click=${() => void popover.openSource(s.sha256, sourceLabel(s), s.url, first)}>${sourceLabel(s)}</button><div
            class="source-url">${displayUrl(s.url)}</div>${cred ? html`<div class="credibility ${cred.score < 0.5 ? "low" : ""}"><span
            class="cred-score">${credibilityWords(cred)}</span>${cred.why.length ? html`<span class="cred-why"> — ${cred.why.join("; ")}</span>` : nothing}</div>` : nothing}${same
            ? html`<div class="muted same-origin">${same}</div>` : nothing}</td>
          <td>${s.kind}</td><td>${cred?.excluded ? "left out" : "read"} · ${quotes} quote${quotes === 1 ? "" : "s"}</td>
          <td>${claims.length ? html`<ul class="claims">${claims.slice(0, 4).map((c) => html`<li class=${c.supported ? "ok" : "no"}>${c.text}</li>`)}</ul>` : "—"}</td></tr>`;
      })}
      ${unread.map((u) => html`<tr class="unread"><td>—</td><td><button class="link" @click=${() => actions.openExternal(u.url)}>${displayUrl(u.url)}</button></td>
        <td>—</td><td>not read: ${u.reason}</td><td>—</td></tr>`)}
      ${!detail.sources.length && !unread.length ? html`<tr><td colspan="5">No sources yet.</td></tr>` : nothing}`, body);
    // Sources the trust pipeline kept out of the writer's evidence, each with why.
    const excluded = (detail.trust?.credibility ?? []).filter((c) => c.excluded);
    const label = (id: number) => {
      const s = detail.sources.find((x) => x.source_id === id);
      return s ? `${sourceLabel(s)} (${displayUrl(s.url)})` : `Source ${id}`;
    };
    render(excluded.length ? html`<h3>Left out of the report</h3><p class="muted">Their credibility was too low for the writer to use them.</p>
      <ul class="excluded-list">${excluded.map((c) => html`<li data-source=${c.source_id}><strong>[${c.source_id}] ${label(c.source_id)}</strong> —
        ${credibilityWords(c)}: ${c.why.join("; ") || "no reason recorded"}</li>`)}</ul>` : nothing, $("trust-excluded"));
  }

  function renderMethod(detail: SessionDetail | null) {
    const box = $("method");
    if (!detail) {
      render(nothing, box);
      return;
    }
    const view = methodView(detail);
    const list = (tag: "ol" | "ul", items: string[]) => tag === "ol" ? html`<ol>${items.map((q) => html`<li>${q}</li>`)}</ol>` : html`<ul>${items.map((q) => html`<li>${q}</li>`)}</ul>`;
    render(html`
      <dl class="method-list">${view.rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
      ${view.plan.length ? html`<h3>Plan</h3><ol class="method-plan">${view.plan.map((p) => html`<li>${p.question}${p.coverage
        ? html` <span class="coverage ${p.coverage.replace(/ /g, "-")}">${p.coverage}</span>` : nothing}</li>`)}</ol>` : nothing}
      ${view.planner ? html`<p class="method-planner">${view.planner}</p>` : nothing}
      ${view.concerns.length ? html`<h3>The planner's concerns about the scope</h3>${list("ul", view.concerns)}` : nothing}
      ${view.searches.length ? html`<h3>Searches run</h3>${list("ol", view.searches)}` : nothing}
      ${view.skipped.length ? html`<h3>Skipped as near-duplicates</h3>${list("ul", view.skipped)}` : nothing}
      ${view.gaps.length ? html`<h3>Still missing</h3>${list("ul", view.gaps)}` : nothing}
      ${view.turns.length ? html`<h3>Questions asked</h3>${list("ol", view.turns)}` : nothing}`, box);
  }
}
