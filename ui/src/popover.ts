// The citation popover and the source viewer. Its state (which citation it is open for, where
// focus goes back to, the source shown) lives in the one `Popover` instance.
import { html, nothing, render } from "lit-html";
import { citationInfo, findQuote, sourceLabel, verificationWords } from "./citations";
import { $, displayUrl, el } from "./dom";
import { confidenceWords, markInfo } from "./trust";
import type { CheckedSentence, CheckStatus, ClaimTrust, DocumentCheck, SessionDetail, TrustMark } from "./types";

/** A status of the checker as a person reads it. */
export function statusLabel(status: CheckStatus): string {
  return status.charAt(0).toUpperCase() + status.slice(1);
}

export interface PopoverDeps {
  sourceText(sha256: string): Promise<string | null>;
  openExternal(url: string): void;
}

export class Popover {
  private readonly pop = $("cite-popover");
  private readonly viewer = $("source-viewer");
  /** The citation the popover is open for. */
  private anchor: HTMLElement | null = null;
  /** Where focus was before the source viewer opened, to go back there when it closes. */
  private viewerReturn: HTMLElement | null = null;
  private viewerUrl = "";
  private readonly deps: PopoverDeps;

  constructor(deps: PopoverDeps) {
    this.deps = deps;
    $("source-viewer-close").addEventListener("click", () => this.closeViewer());
    $("source-open-external").addEventListener("click", () => this.deps.openExternal(this.viewerUrl));
    // The viewer is modal: Tab cycles through its own controls.
    this.viewer.addEventListener("keydown", (e) => {
      if (e.key !== "Tab") return;
      const items = [...this.viewer.querySelectorAll<HTMLElement>("button, [href], [tabindex]:not([tabindex='-1'])")];
      if (!items.length) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    });
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        if (!this.viewer.hidden) this.closeViewer();
        this.close();
      }
    });
    document.addEventListener("click", (e) => {
      if (!this.pop.hidden && this.anchor && !this.pop.contains(e.target as Node) && !this.anchor.contains(e.target as Node)) this.close();
    });
  }

  /** Shows what citation `n` of `detail` rests on, beside `anchor`; `focus` moves focus into it. */
  open(anchor: HTMLElement, n: number, detail: SessionDetail, focus = false) {
    const c = citationInfo(n, detail.sources, detail.evidence, detail.claims);
    const src = c.source;
    const title = src ? sourceLabel(src) : `Source ${n}`;
    const show = (quote: string) => () => src && void this.openSource(src.sha256, sourceLabel(src), src.url, quote);
    // Each quote opens the source at that quote.
    const quote = (q: string) => src
      ? html`<blockquote class="quote" tabindex="0" title="Show this passage in the source" @click=${show(q)}
          @keydown=${(e: KeyboardEvent) => e.key === "Enter" && show(q)()}>“${q}”</blockquote>`
      : html`<blockquote class="quote">“${q}”</blockquote>`;
    render(html`
      <div class="source-title">[${n}] ${title}</div>
      ${src ? html`<div class="source-url">${displayUrl(src.url)}</div>` : nothing}
      <div class="verify-state ${c.state}">${verificationWords(c.state)}</div>
      ${c.quotes.slice(0, 3).map((q) => quote(q.quote))}
      ${c.quotes.length > 3 ? html`<div class="more">and ${c.quotes.length - 3} more quotes</div>` : nothing}
      ${src ? html`<div class="actions">
        <button class="open-source" @click=${show(c.quotes[0]?.quote ?? "")}>Show in source</button>
        <button class="open-link" @click=${() => this.deps.openExternal(src.url)}>${src.url.startsWith("file://") ? "Show file" : "Open page"}</button>
      </div>` : nothing}`, this.pop);
    this.place(anchor, focus);
  }

  /** Shows what a trust mark says of its sentence: the mark, how it was checked, its sources and quotes. */
  openClaim(anchor: HTMLElement, mark: TrustMark, claim: ClaimTrust | null, detail: SessionDetail, focus = false) {
    const info = markInfo(detail.trust?.legend ?? [], claim?.mark ?? mark);
    const source = (n: number) => detail.sources.find((s) => s.source_id === n) ?? null;
    const label = (n: number) => {
      const s = source(n);
      return s ? sourceLabel(s) : `Source ${n}`;
    };
    const quote = (n: number, q: string) => {
      const s = source(n);
      const show = () => s && void this.openSource(s.sha256, sourceLabel(s), s.url, q);
      return s
        ? html`<blockquote class="quote" tabindex="0" title="Show this passage in the source" @click=${show}
            @keydown=${(e: KeyboardEvent) => e.key === "Enter" && show()}>“${q}”</blockquote>`
        : html`<blockquote class="quote">“${q}”</blockquote>`;
    };
    render(html`
      <div class="claim-mark mark-${info.mark}"><span class="trust-symbol">${info.symbol}</span> <strong>${info.label}</strong>: ${info.meaning}.</div>
      ${claim ? html`
        <div class="claim-check">${claim.check}</div>
        <div class="muted claim-facts">Audit: ${claim.status} · ${claim.origins} independent origin${claim.origins === 1 ? "" : "s"} · ${confidenceWords(claim)}</div>
        <div class="claim-head">${claim.supported_by.length ? "Supported by" : "No source read says it as written."}</div>
        ${claim.supported_by.slice(0, 4).map((c) => html`<div class="claim-source">[${c.source_id}] ${label(c.source_id)}${c.cited ? "" : " (found by cross-validation)"}</div>${quote(c.source_id, c.quote)}`)}
        ${claim.supported_by.length > 4 ? html`<div class="more">and ${claim.supported_by.length - 4} more sources</div>` : nothing}
        ${claim.contradicted_by.length ? html`<div class="claim-head">Contested by</div>` : nothing}
        ${claim.contradicted_by.map((c) => html`<div class="claim-source">[${c.source_id}] ${label(c.source_id)} states ${c.numbers.join(", ")}</div>${quote(c.source_id, c.quote)}`)}`
      : html`<div class="muted">The trust record has no check for this sentence as it reads now.</div>`}`, this.pop);
    this.place(anchor, focus && "[tabindex='0'], button");
  }

  /** Shows what the checker said of a sentence of a checked document: its mark and what it means, why, and the passage. */
  openChecked(anchor: HTMLElement, sentence: CheckedSentence, found: DocumentCheck, focus = false) {
    const meaning = found.legend.find((m) => m.status === sentence.status);
    const where = (n: number | null | undefined) => (n == null ? "" : `[${n}] ${found.sources[n] ?? `Source ${n}`}`);
    render(html`
      <div class="claim-mark check-${sentence.status}"><span class="trust-symbol">${meaning?.symbol ?? ""}</span>
        <strong>${statusLabel(sentence.status)}</strong>${meaning ? html`: ${meaning.meaning}.` : nothing}</div>
      <div class="claim-check">${sentence.check}</div>
      ${sentence.suggested != null ? html`<div class="claim-head">Cite ${where(sentence.suggested)}</div>` : nothing}
      ${sentence.passage ? html`<div class="claim-source">${where(sentence.source)}</div><blockquote class="quote">“${sentence.passage}”</blockquote>` : nothing}`, this.pop);
    this.place(anchor, focus && "[tabindex='0'], button, blockquote");
  }

  /** Shows the popover beside `anchor`; `focus` moves focus into it (to its first `focus` element when a selector). */
  private place(anchor: HTMLElement, focus: boolean | string) {
    // Focusing a mark can scroll the page after the popover is placed: bring it into view first.
    anchor.scrollIntoView({ block: "nearest" });
    const r = anchor.getBoundingClientRect();
    const pop = this.pop;
    pop.hidden = false;
    const width = Math.min(420, window.innerWidth - 24);
    pop.style.width = `${width}px`;
    pop.style.left = `${Math.max(12, Math.min(r.left, window.innerWidth - width - 12))}px`;
    const below = r.bottom + 8;
    pop.style.top = `${below + pop.offsetHeight > window.innerHeight ? Math.max(8, r.top - pop.offsetHeight - 8) : below}px`;
    this.anchor = anchor;
    if (focus) (pop.querySelector<HTMLElement>(typeof focus === "string" ? focus : "button") ?? pop).focus();
  }

  close() {
    const hadFocus = this.pop.contains(document.activeElement);
    const anchor = this.anchor;
    this.pop.hidden = true;
    this.anchor = null;
    if (hadFocus) anchor?.focus();
  }

  /** Shows a stored source's text with `quote` marked. */
  async openSource(sha256: string, title: string, url: string, quote: string) {
    this.viewerReturn = this.anchor ?? (document.activeElement as HTMLElement | null);
    this.close();
    const text = await this.deps.sourceText(sha256);
    if (text === null) return;
    this.viewerUrl = url;
    $("source-viewer-title").textContent = title;
    const box = $("source-text");
    const at = quote ? findQuote(text, quote) : null;
    if (at) {
      box.replaceChildren(text.slice(0, at[0]), el("mark", {}, text.slice(at[0], at[1])), text.slice(at[1]));
    } else {
      box.replaceChildren(text);
    }
    this.viewer.hidden = false;
    $("source-viewer-close").focus();
    box.querySelector("mark")?.scrollIntoView({ block: "center" });
  }

  closeViewer() {
    this.viewer.hidden = true;
    this.viewerReturn?.focus();
    this.viewerReturn = null;
  }
}
