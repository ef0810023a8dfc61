// *Check a document*: the document (opened or pasted), its sources (files, URLs, or a session's),
// and every sentence with the checker's mark, whose hover and focus show why and the passage.
import { html, nothing, render } from "lit-html";
import { inside, setBusy } from "../dom";
import { statusLabel } from "../popover";
import { shallow } from "../store";
import type { CheckedSentence, DocumentCheck } from "../types";
import type { Ctx } from "./ctx";

/** "12 sentences: 5 verified, 4 partly, …" in the legend's order. */
export function checkSummary(found: DocumentCheck): string {
  const counts = found.legend.map((m) => `${found.audit.filter((s) => s.status === m.status).length} ${m.status}`);
  const n = found.audit.length;
  return `${n} sentence${n === 1 ? "" : "s"}: ${counts.join(", ")}.`;
}

export function mountCheck(root: HTMLElement, { store, actions, popover }: Ctx) {
  const $ = inside(root);
  const text = $<HTMLTextAreaElement>("check-text");
  const url = $<HTMLInputElement>("check-url");
  const session = $<HTMLSelectElement>("check-session");
  $("check-open").addEventListener("click", () => void actions.chooseCheckDocument());
  text.addEventListener("input", () => actions.setCheckText(text.value));
  session.addEventListener("change", () => actions.setCheckSession(session.value || null));
  $("check-add-file").addEventListener("click", () => void actions.addCheckSourceFile());
  const addUrl = () => {
    if (actions.addCheckSourceUrl(url.value)) url.value = "";
  };
  $("check-add-url").addEventListener("click", addUrl);
  url.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      addUrl();
    }
  });
  $("check-run").addEventListener("click", () => void actions.runCheck());

  store.watch((s) => s.sessions?.list ?? null, (list) => {
    const chosen = store.get().check.session;
    render(html`<option value="">None: the sources below</option>${(list ?? []).map((s) => html`<option value=${s.id} ?selected=${s.id === chosen}>${s.title || s.question}</option>`)}`, session);
  });

  store.watch((s) => s.check, (c) => {
    if (text.value !== c.text) text.value = c.text;
    $("check-path").textContent = c.path;
    session.value = c.session ?? "";
    $("check-add").hidden = c.session !== null;
    render(c.session !== null ? nothing : html`${c.sources.length ? nothing : html`<li class="empty">No sources yet.</li>`}${c.sources.map((s) => html`<li>
      <span class="n">[${s.id}]</span> <span class="path">${s.location}</span>
      <button class="link" aria-label=${`Remove source ${s.id}`} @click=${() => actions.removeCheckSource(s.id)}>Remove</button></li>`)}`, $("check-sources"));
    setBusy($<HTMLButtonElement>("check-run"), c.busy);
    const status = $("check-status");
    status.textContent = c.busy ? "Checking…" : c.error;
    status.classList.toggle("error", !c.busy && !!c.error);
    renderResult($("check-result"), c.result);
  }, shallow);

  function renderResult(box: HTMLElement, found: DocumentCheck | null) {
    if (!found) {
      render(nothing, box);
      return;
    }
    const open = (anchor: HTMLElement, s: CheckedSentence, focus: boolean) => popover.openChecked(anchor, s, found, focus);
    const mark = (s: CheckedSentence) => {
      const m = found.legend.find((l) => l.status === s.status);
      return html`<span class="trust-mark check-mark check-${s.status}" tabindex="0" role="button" aria-haspopup="dialog"
        aria-label=${`${statusLabel(s.status)}: ${m?.meaning ?? ""}`}
        @mouseenter=${(e: Event) => open(e.currentTarget as HTMLElement, s, false)}
        @focus=${(e: Event) => open(e.currentTarget as HTMLElement, s, false)}
        @click=${(e: Event) => open(e.currentTarget as HTMLElement, s, true)}
        @keydown=${(e: KeyboardEvent) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            open(e.currentTarget as HTMLElement, s, true);
          }
        }}>${m?.symbol ?? "?"}</span>`;
    };
    render(html`
      <p class="check-summary">${checkSummary(found)}</p>
      <ul class="trust-legend" aria-label="What the marks mean">${found.legend.map((m) => html`<li data-status=${m.status}><span
        class="trust-mark check-mark check-${m.status}" aria-hidden="true">${m.symbol}</span> <strong>${statusLabel(m.status)}</strong> — ${m.meaning}</li>`)}</ul>
      <ol class="checked-sentences">${found.audit.map((s) => html`<li class="checked check-${s.status}">${mark(s)} <span class="sentence">${s.sentence}</span></li>`)}</ol>
      <p class="muted trust-note">Hover or focus a mark to see why, and the passage of the source it was checked against.</p>`, box);
  }
}
