// A session as a thread of turns: the kept summary, each question with what it was taken to be
// (a chip, the why on hover and focus, a control to re-ask it as the other kind), its run's
// report or its polite reply, and the forks as branches. The composer is below the tabs.
import { html, nothing, render } from "lit-html";
import { conversationEntries, kindWords, markdownBlocks, otherKind, whyWords, type Entry } from "../conversation";
import { isRunning, shallow } from "../store";
import type { Ctx } from "./ctx";

export function mountConversation(root: HTMLElement, { store, actions }: Ctx) {
  const report = (e: Entry) => {
    if (!e.report) {
      if (!e.threadId) return nothing;
      return html`<p class="turn-report muted">${isRunning(store.get(), e.threadId) ? "Researching…" : "No report yet."}</p>`;
    }
    if (e.latest) {
      return html`<p class="turn-report"><button class="link" @click=${() => {
        actions.selectTab("report");
        document.getElementById("tab-report")?.focus();
      }}>Its report is below, in the Report tab</button>.</p>`;
    }
    return html`<details class="turn-report"><summary>Its report (run ${e.run}, version ${e.report.version})</summary>
      <div class="report-text">${markdownBlocks(e.report.markdown).map((b) =>
        b.tag === "h" ? html`<h4>${b.text}</h4>` : b.tag === "li" ? html`<p class="li">• ${b.text}</p>` : html`<p>${b.text}</p>`)}</div></details>`;
  };

  const chip = (e: Entry) => {
    const c = e.classification;
    if (!c) return nothing;
    const why = whyWords(c);
    return html`<span class="chip kind-${c.kind.replace(/_/g, "-")}" tabindex="0" role="note" aria-label=${why} data-why=${why} title=${why}>${kindWords(c.kind)}</span>`;
  };

  const change = (e: Entry, busy: boolean) => {
    const c = e.classification;
    const other = c ? otherKind(c.kind) : null;
    if (!c || !other) return nothing;
    const words = kindWords(other);
    return html`<button class="link change-kind" ?disabled=${busy} data-kind=${other}
      title=${`Asks “${e.question}” again as a ${words}: that starts a new turn; this one stays as it is.`}
      @click=${() => void actions.askFollowUp(e.question, other)}>Ask again as a ${words} (a new turn)</button>`;
  };

  store.watch((s) => [s.session?.detail ?? null, s.session?.asking ?? false,
    Object.values(s.runs).filter((r) => r.phase === "running").map((r) => r.threadId).join(" ")] as const, ([detail, asking]) => {
    if (!detail) {
      render(nothing, root);
      return;
    }
    const entries = conversationEntries(detail);
    const summary = detail.summary.text.trim();
    // One question and its report need no thread around them.
    const single = entries.length <= 1 && !summary;
    root.hidden = single;
    if (single) {
      render(nothing, root);
      return;
    }
    render(html`
      ${summary ? html`<aside class="summary"><h2>So far</h2><p>${summary}</p>
        <p class="muted">A summary of the first ${detail.summary.turns} turns.</p></aside>` : nothing}
      <ol class="turns">${entries.map((e) => html`<li class="turn ${e.branch ? "branch" : ""} ${e.classification?.kind === "cancel" ? "cancelled" : ""}"
        data-thread=${e.threadId ?? nothing} data-kind=${e.classification?.kind ?? nothing}>
        <div class="turn-head">
          ${e.run ? html`<span class="run-no">Run ${e.run}</span>` : nothing}
          ${e.branch ? html`<span class="chip fork">${e.branch}</span>` : chip(e)}
          ${change(e, asking)}
        </div>
        <p class="turn-question">${e.question}</p>
        ${e.reply ? html`<p class="turn-reply" role="status">${e.reply}</p>` : nothing}
        ${report(e)}
      </li>`)}</ol>`, root);
  }, shallow);
}
